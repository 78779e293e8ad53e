// Job-class files (--classes FILE.json) and a generated trace's "Classes:" header, taken as the same text.

#include <cmath>

#include "tests/fuzz/fuzz_support.hpp"
#include "workloads/job_class.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = nvlsim::fuzz::input_file(data, size, ".json");
  nvlsim::fuzz::parses([&] {
    const nvlsim::ClassTable table = nvlsim::load_class_table(path);
    nvlsim::fuzz::require(!table.classes.empty());
    nvlsim::fuzz::require(table.default_class >= 0 &&
                          table.default_class < static_cast<int>(table.classes.size()));
    for (const nvlsim::JobClass& c : table.classes)
      nvlsim::fuzz::require(std::isfinite(c.comm_fraction) && c.comm_fraction >= 0 && c.comm_fraction <= 1 &&
                            c.segment_nodes >= 0);
  });
  nvlsim::fuzz::parses([&] {
    nvlsim::rules_from_header(nvlsim::fuzz::as_text(data, size), nvlsim::builtin_class_table(), "trace");
  });
  return 0;
}
