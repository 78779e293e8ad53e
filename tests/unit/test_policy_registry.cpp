#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>

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

TEST_CASE("the registry lists its policies, each once, the default three first", "[policy_registry]") {
  const std::vector<std::string> names = nvlsim::policy_names();
  REQUIRE(names.size() >= 3);
  CHECK(std::vector<std::string>(names.begin(), names.begin() + 3) ==
        std::vector<std::string>{"per-gpu", "block", "sub-block"});
  for (std::size_t i = 0; i < names.size(); ++i) {
    CHECK(std::count(names.begin(), names.end(), names[i]) == 1);
    CHECK(nvlsim::policy_types()[i]->name == names[i]);
  }
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

TEST_CASE("an unknown parameter names the spec, the key and the declared ones", "[policy_registry]") {
  CHECK_THROWS_WITH(nvlsim::parse_policy("sub-block:segment=8:sgement=4"),
                    Contains("'sgement'") && Contains("known: segment, segment_rules, spread, consolidate") &&
                        Contains("sub-block:segment=8:sgement=4"));
}

TEST_CASE("a bad value names the spec, the key and the range", "[policy_registry]") {
  CHECK_THROWS_WITH(nvlsim::parse_policy("sub-block:segment=-2"), Contains("'sub-block:segment=-2'") &&
                                                                      Contains("segment") &&
                                                                      Contains(">= 0") && Contains("none"));
  CHECK_THROWS_WITH(nvlsim::parse_policy("sub-block:spread=yes"), Contains("spread") && Contains("0 or 1"));
  CHECK_THROWS_WITH(nvlsim::parse_policy("sub-block:segment_rules=64>8/"), Contains("segment_rules"));
  CHECK_THROWS_WITH(nvlsim::parse_policy("sub-block:segment_rules=64>-8"), Contains(">= 0"));
  CHECK_THROWS_WITH(nvlsim::make_policy("block:min_block_nodes=19", kContext),
                    Contains("min_block_nodes") && Contains("[1, 18]"));
}

TEST_CASE("a policy's identity comes from its parsed parameters, its name from its text",
          "[policy_registry]") {
  const auto a = nvlsim::parse_policy("sub-block:spread=1:segment=8");
  const auto b = nvlsim::parse_policy("sub-block:segment=8:spread=1");
  CHECK(a.identity() == b.identity());
  CHECK(a.identity() == "sub-block:segment=8:spread=1");
  CHECK(a.text == "sub-block:spread=1:segment=8");
  CHECK(nvlsim::make_policy(a, kContext)->name() == "sub-block:spread=1:segment=8");
  // Defaults spelled out and words for numbers are the same policy too; other values are not.
  CHECK(nvlsim::parse_policy("sub-block:spread=0").identity() == "sub-block");
  CHECK(nvlsim::parse_policy("sub-block:segment=none").identity() == "sub-block:segment=0");
  CHECK(nvlsim::parse_policy("sub-block:segment=7").identity() != b.identity());
  CHECK(nvlsim::parse_policy("sub-block:segment_rules=64>8/0>1").identity() ==
        "sub-block:segment_rules=64>8/0>1");
}

TEST_CASE("the --help listing shows every policy and each declared parameter", "[policy_registry]") {
  const std::string listing = nvlsim::policy_listing();
  for (const nvlsim::PolicyType* policy : nvlsim::policy_types()) {
    CHECK_THAT(listing, Contains(std::string(policy->name) + ": "));
    for (const nvlsim::ParamDecl& p : policy->params)
      CHECK_THAT(listing, Contains(fmt::format("{}={} (default: {})", p.key, p.value_name, p.default_text)));
  }
}
