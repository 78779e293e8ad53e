// Policy files (--policy-file FILE.json); every spec they yield must split as a policy spec does.

#include "schedulers/policy_spec.hpp"
#include "sim/policy_file.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = nvlsim::fuzz::input_file(data, size, ".json");
  nvlsim::fuzz::parses([&] {
    for (const std::string& spec : nvlsim::read_policy_file(path.string())) nvlsim::parse_policy_spec(spec);
  });
  return 0;
}
