#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "models/input_error.hpp"
#include "schedulers/policy_registry.hpp"

using Catch::Matchers::Contains;
using nvlsim::ClusterShape;
using nvlsim::InputError;
using nvlsim::PolicyContext;

namespace {

const PolicyContext kContext{ClusterShape{2, 18, 4}};

}  // namespace

TEST_CASE("the registry lists its policies", "[policy_registry]") {
  CHECK(nvlsim::policy_names() == std::vector<std::string>{"per-gpu", "block", "sub-block", "tree"});
}

TEST_CASE("make_policy builds per-gpu under its spec's name", "[policy_registry]") {
  const auto policy = nvlsim::make_policy("per-gpu", kContext);
  REQUIRE(policy != nullptr);
  CHECK(policy->name() == "per-gpu");
  // It is the real thing: on an empty machine 2 GPUs go to the first tray.
  const auto allocation = policy->place(nvlsim::ClusterState(kContext.shape), {2});
  REQUIRE(allocation);
  CHECK(allocation->gpus == std::vector<int>{0, 1});
}

TEST_CASE("per-gpu rejects any parameter, naming the spec and the key", "[policy_registry]") {
  CHECK_THROWS_AS(nvlsim::make_policy("per-gpu:segment=8", kContext), InputError);
  CHECK_THROWS_WITH(nvlsim::make_policy("per-gpu:segment=8", kContext),
                    Contains("'per-gpu:segment=8'") && Contains("'segment'") && Contains("no parameters"));
}

TEST_CASE("an unknown policy name lists the known ones", "[policy_registry]") {
  CHECK_THROWS_AS(nvlsim::make_policy("no-such", kContext), InputError);
  CHECK_THROWS_WITH(nvlsim::make_policy("no-such:x=1", kContext),
                    Contains("'no-such:x=1'") && Contains("unknown policy 'no-such'") &&
                        Contains("per-gpu") && Contains("sub-block"));
}

TEST_CASE("malformed specs are input errors naming the spec", "[policy_registry]") {
  const std::string spec =
      GENERATE("", ":a=1", "per-gpu:", "per-gpu:a", "per-gpu:=1", "per-gpu:a=", "per-gpu:a=1:a=2");
  CHECK_THROWS_AS(nvlsim::make_policy(spec, kContext), InputError);
  CHECK_THROWS_WITH(nvlsim::make_policy(spec, kContext), Contains("'" + spec + "'"));
}

TEST_CASE("a spec splits into name and parameters in order", "[policy_registry]") {
  const auto spec = nvlsim::parse_policy_spec("sub-block:segment=8:order=a=b");
  CHECK(spec.text == "sub-block:segment=8:order=a=b");
  CHECK(spec.name == "sub-block");
  REQUIRE(spec.params.size() == 2);
  CHECK(spec.params[0].key == "segment");
  CHECK(spec.params[0].value == "8");
  // Only the first '=' splits, so a value may contain '='.
  CHECK(spec.params[1].key == "order");
  CHECK(spec.params[1].value == "a=b");
}

TEST_CASE("check_param_keys names the unknown key and the known ones", "[policy_registry]") {
  const auto spec = nvlsim::parse_policy_spec("sub-block:segment=8:sgement=4");
  const std::vector<std::string_view> known = {"segment"};
  CHECK_THROWS_WITH(nvlsim::check_param_keys(spec, known),
                    Contains("'sgement'") && Contains("known: segment") && Contains("sub-block:segment=8"));
  const std::vector<std::string_view> both = {"segment", "sgement"};
  CHECK_NOTHROW(nvlsim::check_param_keys(spec, both));
}
