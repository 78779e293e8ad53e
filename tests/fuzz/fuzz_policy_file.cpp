// Policy files (--policy-file FILE.json); every policy they yield must be the same policy when its name,
// the spec text the file spells, is parsed back.

#include "schedulers/policy_registry.hpp"
#include "sim/policy_file.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = nvlsim::fuzz::input_file(data, size, ".json");
  nvlsim::fuzz::parses([&] {
    for (const nvlsim::PolicyConfig& config : nvlsim::read_policy_file(path.string()))
      nvlsim::fuzz::require(nvlsim::parse_policy(config.text).identity() == config.identity());
  });
  return 0;
}
