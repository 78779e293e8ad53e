// Policy specs ("NAME:key=value:..."): split, then typed against the policy's declared parameters by the
// registry that builds policies from them on a small machine.

#include "schedulers/policy_registry.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = nvlsim::fuzz::as_text(data, size);
  nvlsim::fuzz::parses([&] { nvlsim::parse_policy_spec(text); });
  const nvlsim::PolicyContext context{.shape = nvlsim::ClusterShape{.domains = 2}};
  nvlsim::fuzz::parses([&] { nvlsim::make_policy(text, context); });
  return 0;
}
