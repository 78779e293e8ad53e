// SWF traces, gzip-compressed: the input is the compressed file, so truncated and corrupt streams,
// bad trailers and concatenated members reach LineSource.

#include "tests/fuzz/fuzz_support.hpp"
#include "workloads/swf_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = nvlsim::fuzz::input_file(data, size, ".swf.gz");
  nvlsim::fuzz::parses([&] { nvlsim::read_swf(path, {.skip_bad_lines = true}); });
  return 0;
}
