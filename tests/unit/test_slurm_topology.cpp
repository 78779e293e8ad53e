#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/input_error.hpp"
#include "placement_fixtures.hpp"
#include "schedulers/hostlist.hpp"
#include "schedulers/slurm_topology.hpp"
#include "schedulers/switch_tree.hpp"
#include "topology_texts.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using Catch::Matchers::StartsWith;
using nvlsim::ClusterShape;
using nvlsim::InputError;
using nvlsim::PolicyContext;
using nvlsim::SlurmTopology;
using nvlsim::test::ids;
using nvlsim::test::kConf;

namespace {

// Slurm 25.05 topology.yaml in block style: a tree, and the cluster default with blocks.
constexpr const char* kYaml = R"(# Slurm 25.05 style
- topology: fabric
  tree:
    switches:
      - switch: s0
        children: s[1-2]
      - switch: s1
        nodes: gb[001-032]
      - switch: s2
        nodes: gb[033-064]
- topology: nvl
  cluster_default: true
  block:
    block_sizes: [18, 36]
    blocks:
      - block: b1
        nodes: gb[001-018]
      - block: b2
      - block: "b3"
        nodes: gb[019-036]
)";

// kYaml's topologies in flow style, with quotes, comments, an anchor and True (the hand-written parser
// before yaml-cpp rejected flow mappings and anchors), plus "spare", whose block is never read: the
// default comes first though it is listed after it.
constexpr const char* kFlowYaml = R"(---
- topology: fabric
  tree: {switches: [{switch: s0, children: 's[1-2]'},
                    {switch: s1, nodes: "gb[001-032]"}, {switch: s2, nodes: &right "gb[033-064]"}]}
- {topology: spare, block: {blocks: [{block: x, nodes: *right}]}}
# the default, read first though last
- {topology: nvl, cluster_default: True,
   block: {block_sizes: [18, '36'],
           blocks: [{block: b1, nodes: "gb[001-018]"}, {block: b2, nodes: ~}, {"block": "b3", nodes: 'gb[019-036]'}]}}
)";

void check_same(const SlurmTopology& a, const SlurmTopology& b) {
  REQUIRE(a.blocks.size() == b.blocks.size());
  for (std::size_t i = 0; i < a.blocks.size(); ++i) {
    CHECK(a.blocks[i].name == b.blocks[i].name);
    CHECK(a.blocks[i].trays == b.blocks[i].trays);
  }
  CHECK(a.block_sizes == b.block_sizes);
  REQUIRE(a.switches.size() == b.switches.size());
  for (std::size_t i = 0; i < a.switches.size(); ++i) {
    CHECK(a.switches[i].name == b.switches[i].name);
    CHECK(a.switches[i].trays == b.switches[i].trays);
    CHECK(a.switches[i].children == b.switches[i].children);
  }
}

std::string yaml_error(const std::string& text) {
  try {
    nvlsim::parse_topology_yaml(text, "t.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::vector<int> block_trays(const SlurmTopology& topology, std::size_t block) {
  return topology.blocks.at(block).trays;
}

}  // namespace

TEST_CASE("hostlists expand ranges, lists, padding and several brackets", "[slurm_topology]") {
  CHECK(nvlsim::expand_hostlist("node[001-003,010],other5,r[1-2]n[8-9]") ==
        std::vector<std::string>{"node001", "node002", "node003", "node010", "other5", "r1n8", "r1n9", "r2n8",
                                 "r2n9"});
  CHECK(nvlsim::expand_hostlist("n[9-11]") == std::vector<std::string>{"n9", "n10", "n11"});
  for (const char* bad : {"n[1-", "n1]", "n[3-1]", "n[a-b]", "a,,b", "n[1-2"}) {
    CHECK_THROWS_AS(nvlsim::expand_hostlist(bad), std::invalid_argument);
  }
}

TEST_CASE("a hostlist of more than 262144 names is an error, not the whole memory", "[slurm_topology]") {
  const std::string too_many = "hostlist names more than 262144 nodes or 16 MiB of names";
  CHECK_THROWS_WITH(nvlsim::expand_hostlist("n[01-2147483647]"), too_many);
  // Each group alone is small; together they name 513 x 512 nodes.
  CHECK_THROWS_WITH(nvlsim::expand_hostlist("r[1-513]n[1-512]"), too_many);
  CHECK(nvlsim::expand_hostlist("r[1-512]n[1-512]").size() == 262'144);
}

TEST_CASE("topology.conf gives blocks in file order, placeholders and BlockSizes", "[slurm_topology]") {
  const SlurmTopology topology = nvlsim::parse_topology_conf(kConf, "t.conf");
  REQUIRE(topology.blocks.size() == 4);
  CHECK(topology.blocks[0].name == "b1");
  CHECK(block_trays(topology, 0) == ids(0, 18));  // first distinct node = tray 0
  CHECK(block_trays(topology, 1) == ids(18, 36));
  CHECK(block_trays(topology, 2) == ids(36, 50));
  CHECK(block_trays(topology, 3).empty());
  CHECK(topology.block_sizes == std::vector{18, 36, 72});
  CHECK(topology.switches.empty());
}

TEST_CASE("topology node names map through an explicit list", "[slurm_topology]") {
  const std::vector<std::string> names = {"gb003", "gb001", "gb002"};
  const SlurmTopology topology =
      nvlsim::parse_topology_conf("BlockName=b1 Nodes=gb[001-003]\n", "t.conf", names);
  CHECK(block_trays(topology, 0) == std::vector{1, 2, 0});
  CHECK_THROWS_WITH(nvlsim::parse_topology_conf("\nBlockName=b1 Nodes=gb[001-004]\n", "t.conf", names),
                    "t.conf:2: unknown node 'gb004'");
}

TEST_CASE("a node in two blocks or under two switches names both and the node", "[slurm_topology]") {
  CHECK_THROWS_WITH(
      nvlsim::parse_topology_conf("BlockName=b1 Nodes=n[1-2]\n# c\nBlockName=b2 Nodes=n[2-3]\n", "t.conf"),
      "t.conf:3: node 'n2' is in block 'b1' (line 1) and again in block 'b2'");
  CHECK_THROWS_WITH(nvlsim::parse_topology_conf("SwitchName=s1 Nodes=n[1-2],n1\n", "t.conf"),
                    "t.conf:1: node 'n1' is in switch 's1' (line 1) and again in switch 's1'");
  // A node may be in one block and under one switch: the two describe different topologies.
  CHECK(nvlsim::parse_topology_conf("BlockName=b1 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[1-2]\n", "t.conf")
            .switches.size() == 1);
}

TEST_CASE("topology.yaml names each topology once and has at most one cluster default", "[slurm_topology]") {
  CHECK_THROWS_WITH(
      nvlsim::parse_topology_yaml("- topology: a\n  flat: true\n- topology: a\n  flat: true\n", "t.yaml"),
      "t.yaml:3: topology: topology 'a' is already on line 1");
  CHECK_THROWS_WITH(nvlsim::parse_topology_yaml("- topology: a\n  cluster_default: true\n  flat: true\n"
                                                "- topology: b\n  cluster_default: true\n  flat: true\n",
                                                "t.yaml"),
                    "t.yaml:5: cluster_default: a second cluster_default topology (the first is on line 2)");
}

TEST_CASE("switches that form a cycle are an error at the line that closes it", "[slurm_topology]") {
  CHECK_THROWS_WITH(
      nvlsim::parse_topology_conf("SwitchName=s0 Switches=s1\nSwitchName=s1 Switches=s0\n", "c.conf"),
      "c.conf:2: switch 's1' names 's0' below it, which is 's1' itself or above it: the switches form a "
      "cycle");
  CHECK_THROWS_WITH(nvlsim::parse_topology_conf("SwitchName=s0 Switches=s0 Nodes=n1\n", "c.conf"),
                    Catch::StartsWith("c.conf:1: switch 's0' names 's0' below it"));
  CHECK_THROWS_WITH(nvlsim::parse_topology_yaml("- topology: t\n  tree:\n    switches:\n"
                                                "      - {switch: a, children: b}\n"
                                                "      - {switch: b, children: a}\n",
                                                "c.yaml"),
                    Catch::StartsWith("c.yaml:5: tree.switches[1].children: switch 'b' names 'a' below it"));
  // A switch below two others is no cycle.
  CHECK(nvlsim::parse_topology_conf(
            "SwitchName=a Switches=c\nSwitchName=b Switches=c\nSwitchName=c Nodes=n1\n", "ok.conf")
            .switches.size() == 3);
}

TEST_CASE("topology nodes named by appearance stop at the platform's trays", "[slurm_topology]") {
  const std::string text = "SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[3-4]\n";
  CHECK(nvlsim::parse_topology_conf(text, "t.conf", {}, 4).switches.size() == 2);
  CHECK_THROWS_WITH(nvlsim::parse_topology_conf(text, "t.conf", {}, 3),
                    Catch::StartsWith("t.conf:2: node 'n4' is distinct node number 4 in the file, more than "
                                      "the platform's 3 trays"));
  CHECK_THROWS_WITH(
      nvlsim::parse_topology_yaml("- topology: t\n  block:\n    blocks:\n      - {block: b, "
                                  "nodes: 'n[1-4]'}\n",
                                  "t.yaml", {}, 3),
      Catch::StartsWith("t.yaml:4: block.blocks[0].nodes: node 'n4' is distinct node number 4"));
}

TEST_CASE("topology.conf errors name file and line", "[slurm_topology]") {
  const auto message = [](const std::string& text) {
    try {
      nvlsim::parse_topology_conf(text, "t.conf");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("BlockName=b1 Nodes=n1\nBlockSizes=18,30\n") ==
        "t.conf:2: block size 30 is not the base 18 times a rising power of 2");
  CHECK_THAT(message("BlockSizes=18,72,36\n"), Contains("t.conf:1:"));
  CHECK_THAT(message("# c\nBlockName=b1 Nodes=n[1-x]\n"), Contains("t.conf:2: bad range"));
  CHECK_THAT(message("Frobnicate=1\n"), Contains("t.conf:1: expected BlockName="));
  CHECK_THAT(message("BlockName=b1 Nodes=n1 Weight=3\n"), Contains("t.conf:1: unknown key 'Weight'"));
  CHECK_THAT(message("BlockName=b1 Nodes=n1\nBlockName=b1 Nodes=n2\n"),
             Contains("t.conf:2: block 'b1' defined twice"));
  CHECK_THAT(message("SwitchName=s0 Switches=s[1-2]\nSwitchName=s1 Nodes=n1\n"),
             Contains("t.conf:1: unknown switch 's2'"));
  CHECK_THAT(message("BlockName=b1 Nodes\n"), Contains("t.conf:1: 'Nodes' is not Key=Value"));
}

TEST_CASE("topology.conf switches link children by name, in any order", "[slurm_topology]") {
  const SlurmTopology topology = nvlsim::parse_topology_conf(
      "SwitchName=spine Switches=leaf[1-2] LinkSpeed=400\nSwitchName=leaf1 Nodes=n[1-2]\nSwitchName=leaf2 "
      "Nodes=n3\n",
      "t.conf");
  REQUIRE(topology.switches.size() == 3);
  CHECK(topology.switches[0].children == std::vector{1, 2});
  CHECK(topology.switches[1].trays == std::vector{0, 1});
  CHECK(topology.switches[2].trays == std::vector{2});
}

TEST_CASE("topology.yaml reads the cluster default's block and a tree", "[slurm_topology]") {
  const SlurmTopology topology = nvlsim::parse_topology_yaml(kYaml, "t.yaml");
  REQUIRE(topology.blocks.size() == 3);
  CHECK(block_trays(topology, 0) == ids(0, 18));
  CHECK(block_trays(topology, 1).empty());
  CHECK(topology.blocks[2].name == "b3");
  CHECK(block_trays(topology, 2) == ids(18, 36));
  CHECK(topology.block_sizes == std::vector{18, 36});
  REQUIRE(topology.switches.size() == 3);
  CHECK(topology.switches[0].children == std::vector{1, 2});
  CHECK(topology.switches[1].trays == ids(0, 32));
  CHECK(topology.switches[2].trays == ids(32, 64));
}

TEST_CASE("topology.yaml in flow style reads as the block style does", "[slurm_topology]") {
  const SlurmTopology flow = nvlsim::parse_topology_yaml(kFlowYaml, "flow.yaml");
  check_same(flow, nvlsim::parse_topology_yaml(kYaml, "t.yaml"));
  REQUIRE(flow.blocks.size() == 3);
  CHECK(flow.blocks[2].name == "b3");
  CHECK(flow.blocks[2].trays == ids(18, 36));
  CHECK(flow.block_sizes == std::vector{18, 36});
  // Block sizes may also be one "18,36" string, as in topology.conf; comments alone are no topology.
  CHECK(nvlsim::parse_topology_yaml("- topology: t\n  block: {block_sizes: '18,36', blocks: []}\n", "t.yaml")
            .block_sizes == std::vector{18, 36});
  CHECK(nvlsim::parse_topology_yaml("# nothing yet\n", "t.yaml").blocks.empty());
}

TEST_CASE("topology.yaml errors name file, line and field", "[slurm_topology]") {
  // Syntax errors, at yaml-cpp's line.
  CHECK_THAT(yaml_error("- topology: t\n   tree: x\n"), StartsWith("t.yaml:2: YAML syntax error at column "));
  CHECK_THAT(yaml_error("- topology: t\n  block:\n    blocks:\n\t- block: b\n"),
             StartsWith("t.yaml:4: YAML syntax error at column "));
  CHECK_THAT(yaml_error("a: 1\n---\nb: 2\n"), Equals("t.yaml:3: expected one YAML document"));
  // Wrong types.
  CHECK(yaml_error("- topology: t\n  block:\n    blocks:\n      - block: b1\n        nodes: [n1, n2]\n") ==
        "t.yaml:5: block.blocks[0].nodes: expected a string");
  CHECK(yaml_error("- topology: t\n  block: {blocks: [{block: b1}, {block: {x: 1}}]}\n") ==
        "t.yaml:2: block.blocks[1].block: expected a string");
  CHECK(yaml_error("- topology: t\n  tree: x\n") == "t.yaml:2: tree: expected a mapping with 'switches'");
  CHECK(yaml_error("- topology: t\n  tree:\n    switches: s1\n") ==
        "t.yaml:3: tree.switches: expected a list of switches");
  CHECK(yaml_error("topology: t\n") == "t.yaml:1: expected a list of topologies");
  CHECK(yaml_error("- topology: t\n  cluster_default: maybe\n") ==
        "t.yaml:2: cluster_default: expected true or false");
  // Missing, repeated and unknown keys; an unknown key names the known ones.
  CHECK(yaml_error("- topology: t\n  block:\n    blocks:\n      - nodes: n1\n") ==
        "t.yaml:4: block.blocks[0]: 'block' missing");
  CHECK(yaml_error("- topology: t\n  block:\n    block_sizes: [18]\n") ==
        "t.yaml:2: block: 'blocks' missing");
  CHECK(yaml_error("- topology: t\n  block:\n    blocks:\n      - block: b\n        block: c\n") ==
        "t.yaml:5: block.blocks[0]: key 'block' repeated");
  CHECK_THAT(
      yaml_error("- topology: t\n  bloc:\n    blocks: []\n"),
      StartsWith("t.yaml:2: unknown key 'bloc' (known: topology, cluster_default, block, tree, flat)"));
  CHECK(yaml_error("- topology: t\n  tree:\n    switches:\n      - {switch: s, node: n1}\n") ==
        "t.yaml:4: tree.switches[0]: unknown key 'node' (known: switch, children, nodes)");
  // What the topology says: hostlists, block sizes, switch names.
  CHECK(yaml_error("- topology: t\n  block:\n    blocks:\n      - block: b\n        nodes: n[2-1]\n") ==
        "t.yaml:5: block.blocks[0].nodes: reversed range '2-1' in hostlist");
  CHECK_THAT(yaml_error("- topology: t\n  block:\n    block_sizes: [18, 27]\n    blocks: []\n"),
             StartsWith("t.yaml:3: block.block_sizes: block size 27 is not"));
  CHECK(yaml_error("- topology: t\n  block:\n    blocks: [{block: b}, {block: b}]\n") ==
        "t.yaml:3: block.blocks[1].block: block 'b' defined twice");
  CHECK(yaml_error("- topology: t\n  tree:\n    switches:\n      - switch: s0\n        children: s[1-2]\n"
                   "      - {switch: s1, nodes: n1}\n") ==
        "t.yaml:5: tree.switches[0].children: unknown switch 's2'");
}

TEST_CASE("a switch chain far deeper than the call stack is ordered bottom up", "[slurm_topology]") {
  // s0 over s1 over ... over s99999, the last one over tray n01: 100,000 levels.
  std::string conf;
  constexpr int kDepth = 100'000;
  for (int i = 0; i + 1 < kDepth; ++i)
    conf += "SwitchName=s" + std::to_string(i) + " Switches=s" + std::to_string(i + 1) + "\n";
  conf += "SwitchName=s" + std::to_string(kDepth - 1) + " Nodes=n01\n";
  PolicyContext context{ClusterShape{1, 18, 4}};
  context.topology = nvlsim::parse_topology_conf(conf, "deep.conf");
  const nvlsim::SwitchTree tree = nvlsim::make_switch_tree(context);
  REQUIRE(tree.bottom_up.size() == static_cast<std::size_t>(kDepth));
  CHECK(tree.names[static_cast<std::size_t>(tree.bottom_up.front())] == "s99999");
  CHECK(tree.names[static_cast<std::size_t>(tree.bottom_up.back())] == "s0");
  CHECK(*std::max_element(tree.level.begin(), tree.level.end()) == kDepth - 1);
}

TEST_CASE("a topology file that is a folder or describes nothing is an error", "[slurm_topology][errors]") {
  const auto dir = std::filesystem::temp_directory_path() / ("nvlsim-topology-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "folder.conf");
  std::ofstream(dir / "empty.conf") << "# no blocks yet\n";
  std::ofstream(dir / "empty.yaml") << "";
  CHECK_THROWS_WITH(nvlsim::read_slurm_topology((dir / "folder.conf").string()),
                    (dir / "folder.conf").string() + ": is a folder, expected a topology file");
  for (const char* name : {"empty.conf", "empty.yaml"}) {
    CHECK_THROWS_WITH(nvlsim::read_slurm_topology((dir / name).string()),
                      (dir / name).string() + ": describes no block and no switch");
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a topology file naming more than 1048576 nodes and switches in all is an error",
          "[slurm_topology][errors]") {
  std::string text;
  for (int line = 0; line < 5; ++line)
    text += "SwitchName=s" + std::to_string(line) + " Switches=x[0-262143]\n";
  CHECK_THROWS_WITH(nvlsim::parse_topology_conf(text, "t.conf"),
                    "t.conf:5: the file names more than 1048576 nodes and switches in all");
}
