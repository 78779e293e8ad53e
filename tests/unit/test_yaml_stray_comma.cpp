// topology.yaml with a ',' where yaml-cpp 0.7 would loop forever is a syntax error naming line and column.

#include <catch2/catch.hpp>
#include <string>

#include "models/input_error.hpp"
#include "schedulers/slurm_topology.hpp"
#include "schedulers/yaml_stray_comma.hpp"

using nvlsim::find_stray_comma;

TEST_CASE("commas where a YAML value could start are found", "[slurm_topology][errors]") {
  for (const char* text :
       {",", ",a\n b", "- a\n,\n", "[a],\n", "\"x\",\n b", "--- ,\n", "# c\n,a\n", "- 'it''s',", "&t,",
        "!!str,", "- &a x\n,", "''&t,", "\"x\"&a,", "[a]&b,", "!t\"\",", "!t(&a,"}) {
    INFO(text);
    CHECK(find_stray_comma(text).has_value());
  }
  const auto at = find_stray_comma("- topology: t\n  block: [a, b],\n");
  REQUIRE(at.has_value());
  CHECK(at->line == 2);
  CHECK(at->column == 16);
}

TEST_CASE("commas in hostlists, flow lists, quotes and comments are fine", "[slurm_topology]") {
  for (const char* text : {"nodes: n[1-4],m[1-2]\n", "block_sizes: [4, 8]\n", "sizes: 18,36\n",
                           "- {block: b1, nodes: \"n[1,2]\"}\n", "# a, b\n- x # c, d\n", "k: 'a, b'\n",
                           "k: don't, x\n", "k: [\n  a,\n  b\n]\n", "k: &a [a, b]\n", "k: !!str a,b\n"}) {
    INFO(text);
    CHECK(!find_stray_comma(text).has_value());
  }
}

TEST_CASE("topology.yaml reports a stray comma instead of hanging in yaml-cpp", "[slurm_topology][errors]") {
  CHECK_THROWS_WITH(nvlsim::parse_topology_yaml("- topology: t\n,\n", "t.yaml"),
                    "t.yaml:2: YAML syntax error at column 1: ',' outside a [...] or {...} list");
}

TEST_CASE("topology.yaml reports a control character instead of growing in yaml-cpp",
          "[slurm_topology][errors]") {
  CHECK_THROWS_WITH(nvlsim::parse_topology_yaml(std::string("- a\n\0,y", 8), "t.yaml"),
                    "t.yaml:2: YAML syntax error at column 1: a control character YAML does not allow");
  CHECK(!nvlsim::find_control_character("- a\t\r\n").has_value());
}

TEST_CASE("topology.yaml that yaml-cpp never finishes reading is an error, not a hang",
          "[slurm_topology][errors]") {
  // A '[' inside a plain value, then a comma on the next line: no known shape, yet yaml-cpp 0.7 grows
  // without bound. The read in a child is stopped at its memory bound.
  CHECK_THROWS_WITH(
      nvlsim::parse_topology_yaml("- p [\n,", "t.yaml"),
      Catch::Matchers::StartsWith("t.yaml: YAML syntax error: yaml-cpp 0.7 does not finish reading"));
  // A file it reads is read as before.
  CHECK_NOTHROW(nvlsim::parse_topology_yaml("- topology: t\n  flat: true\n", "t.yaml"));
}
