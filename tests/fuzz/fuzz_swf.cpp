// SWF traces, plain text, read through LineSource as nvlsim reads them.

#include <cmath>

#include "tests/fuzz/fuzz_support.hpp"
#include "workloads/swf_reader.hpp"

namespace {

// Every accepted field is finite and >= 0 or -1, and a job always has a submit time.
void check(const nvlsim::SwfTrace& trace) {
  for (const nvlsim::SwfRecord& r : trace.records) {
    for (double v : {r.submit_time, r.wait_time, r.run_time, r.requested_time, r.think_time})
      nvlsim::fuzz::require(std::isfinite(v) && (v >= 0 || v == -1));
    nvlsim::fuzz::require(r.submit_time >= 0);
  }
  nvlsim::fuzz::require(trace.records.size() == trace.record_lines.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = nvlsim::fuzz::input_file(data, size, ".swf");
  nvlsim::fuzz::parses([&] { check(nvlsim::read_swf(path, {.skip_bad_lines = true})); });
  nvlsim::fuzz::parses([&] { check(nvlsim::read_swf(path)); });
  return 0;
}
