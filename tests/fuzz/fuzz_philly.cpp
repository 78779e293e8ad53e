// The Philly converter (`nvlsim workload convert --format philly`), checked to write SWF nvlsim reads back.

#include "tests/fuzz/converted_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = nvlsim::fuzz::input_file(data, size, ".json");
  nvlsim::fuzz::parses([&] { nvlsim::fuzz::check_conversion(nvlsim::convert_philly(path)); });
  return 0;
}
