// The Alibaba converter (`nvlsim workload convert --format alibaba`), checked to write SWF nvlsim reads back.

#include "tests/fuzz/converted_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = nvlsim::fuzz::input_file(data, size, ".csv");
  nvlsim::fuzz::parses([&] { nvlsim::fuzz::check_conversion(nvlsim::convert_alibaba(path)); });
  return 0;
}
