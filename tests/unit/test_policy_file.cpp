#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/input_error.hpp"
#include "nvlsim_process.hpp"
#include "sim/policy_file.hpp"

using Catch::Matchers::Contains;

namespace {

std::vector<nvlsim::PolicyConfig> read(const std::string& json) {
  const auto path = nvlsim::test::scratch_dir("policy-file") / "nvlsim-test-policy-file.json";
  std::ofstream(path) << json;
  return nvlsim::read_policy_file(path.string());
}

}  // namespace

TEST_CASE("a policy file's values are typed through the declared parameters", "[policy_file]") {
  const auto configs = read(R"({"policies": ["per-gpu", {"policy": "block", "min_block_nodes": 16},
      {"policy": "sub-block", "segment_rules": [[128, 16], [32, 4], [0, 1]], "spread": true},
      {"policy": "sub-block", "segment": "none", "consolidate": 1}]})");
  REQUIRE(configs.size() == 4);
  CHECK(configs[0].text == "per-gpu");
  CHECK(configs[1].text == "block:min_block_nodes=16");
  CHECK(configs[1].params.integer("min_block_nodes") == 16);
  // Names as the spec would be written, rule tables as G>S/G>S.
  CHECK(configs[2].text == "sub-block:segment_rules=128>16/32>4/0>1:spread=1");
  REQUIRE(configs[2].params.pairs("segment_rules") != nullptr);
  CHECK(*configs[2].params.pairs("segment_rules") == nvlsim::IntPairs{{128, 16}, {32, 4}, {0, 1}});
  CHECK(configs[2].params.flag("spread"));
  CHECK(configs[3].text == "sub-block:segment=none:consolidate=1");
  CHECK(configs[3].identity() == "sub-block:segment=0:consolidate=1");
}

TEST_CASE("a policy file's bad values name the file, the entry, the key and the range", "[policy_file]") {
  CHECK_THROWS_WITH(read(R"({"policies": [{"policy": "sub-block", "spread": 2}]})"),
                    Contains("policies[0].spread") && Contains("[0, 1]"));
  CHECK_THROWS_WITH(read(R"({"policies": [{"policy": "sub-block", "segment": true}]})"),
                    Contains("policies[0].segment") && Contains(">= 0"));
  CHECK_THROWS_WITH(read(R"({"policies": [{"policy": "sub-block", "segment_rules": [[1, -1]]}]})"),
                    Contains("policies[0].segment_rules") && Contains(">= 0"));
  CHECK_THROWS_WITH(read(R"({"policies": [{"policy": "block", "segment": 4}]})"),
                    Contains("policies[0]") && Contains("unknown parameter 'segment'"));
  CHECK_THROWS_WITH(read(R"({"policies": ["tree:x=1"]})"),
                    Contains("policies[0]") && Contains("no parameters"));
  // A misspelt second list would silently not run.
  CHECK_THROWS_WITH(read(R"({"policies": ["per-gpu"], "polices": ["block"]})"),
                    Contains(": polices: unknown key (expected policies)"));
}
