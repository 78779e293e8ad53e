// The block and tree policies on a topology file: they follow its blocks and switches, and the files
// nvlsim writes for its own fabric give the same placements as no file.

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "models/input_error.hpp"
#include "placement_fixtures.hpp"
#include "schedulers/block_layout.hpp"
#include "schedulers/policy_registry.hpp"
#include "schedulers/slurm_topology.hpp"
#include "schedulers/switch_tree.hpp"
#include "schedulers/topology_conf_writer.hpp"
#include "topology_texts.hpp"

using Catch::Matchers::Contains;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::InputError;
using nvlsim::PolicyContext;
using nvlsim::test::concat;
using nvlsim::test::kConf;
using nvlsim::test::tray_gpus;

TEST_CASE("block policies follow the topology's blocks, placeholders included", "[slurm_topology]") {
  PolicyContext context{ClusterShape{4, 18, 4}};
  context.topology = nvlsim::parse_topology_conf(kConf, "t.conf");
  const ClusterState empty(context.shape);
  const auto trays = [](int count) { return nvlsim::JobRequest{4 * count, nvlsim::RequestShape::nodes}; };
  // 20 nodes: pairs (b1, b2) offer 36, (b3, placeholder) 14. Neither base block holds 20: the larger, the
  // later on ties (b2), whole, then 2 trays of b1.
  CHECK(nvlsim::make_policy("block", context)->place(empty, trays(20))->gpus ==
        concat(tray_gpus(0, 2), tray_gpus(18, 36)));
  // A placeholder first shifts the pairs: (b0, b1) offers 18, (b2, b3) 36 and wins: b3 whole, 2 of b2.
  context.topology = nvlsim::parse_topology_conf(
      "BlockName=b0\nBlockName=b1 Nodes=n[01-18]\nBlockName=b2 Nodes=n[19-36]\nBlockName=b3 Nodes=n[37-54]\n",
      "t.conf");
  CHECK(nvlsim::make_policy("sub-block:segment=0", context)->place(empty, trays(20))->gpus ==
        concat(tray_gpus(18, 20), tray_gpus(36, 54)));
  // Trays the topology leaves out are never used: 14 free trays of b3 do not hold 16 nodes.
  context.topology = nvlsim::parse_topology_conf(kConf, "t.conf");
  const auto rack = nvlsim::make_policy("sub-block:segment=0", context);
  ClusterState two_full(context.shape);
  two_full.apply(nvlsim::Allocation{tray_gpus(0, 36), {}});
  CHECK_FALSE(rack->place(two_full, trays(16)).has_value());
  CHECK(rack->place(two_full, trays(14))->gpus == tray_gpus(36, 50));
}

TEST_CASE("tree follows the topology's switches", "[slurm_topology]") {
  PolicyContext context{ClusterShape{4, 18, 4}};
  context.topology = nvlsim::parse_topology_conf(
      "SwitchName=top Switches=l[1-2]\nSwitchName=l1 Nodes=n[01-40]\nSwitchName=l2 Nodes=n[41-72]\n",
      "t.conf");
  const auto tree = nvlsim::make_policy("tree", context);
  const ClusterState empty(context.shape);
  // 120 GPUs: l2 (32 trays, 128 GPUs) is tighter than l1 (160): trays 40..69.
  CHECK(tree->place(empty, {120})->gpus == tray_gpus(40, 70));
  // 200 GPUs: l2 again has the fewer usable nodes, and goes whole; then 72 of l1.
  CHECK(tree->place(empty, {200})->gpus == concat(tray_gpus(0, 18), tray_gpus(40, 72)));
}

TEST_CASE("a topology naming trays beyond the machine is an input error", "[slurm_topology]") {
  PolicyContext context{ClusterShape{1, 18, 4}};
  context.topology = nvlsim::parse_topology_conf("BlockName=b1 Nodes=n[01-19]\n", "t.conf");
  CHECK_THROWS_AS(nvlsim::make_policy("block", context), InputError);
  context.topology = nvlsim::parse_topology_conf("SwitchName=s Nodes=n[01-19]\n", "t.conf");
  CHECK_THROWS_AS(nvlsim::make_policy("tree", context), InputError);
}

TEST_CASE("the topology.conf of nvlsim's own leaves gives tree the same placements", "[slurm_topology]") {
  PolicyContext own{ClusterShape{4, 18, 4}};
  own.trays_per_leaf = 8;  // 9 leaves, the last cut by no rack boundary
  for (int tray = 0; tray < own.shape.trays(); ++tray) own.node_names.push_back("gb" + std::to_string(tray));
  const std::string text = nvlsim::topology_conf_text(nvlsim::make_switch_tree(own), own.node_names);
  CHECK_THAT(text, Contains("SwitchName=leaf8 Nodes=gb[64-71]"));
  PolicyContext from_file = own;
  from_file.topology = nvlsim::parse_topology_conf(text, "written.conf");
  const auto a = nvlsim::make_policy("tree", own);
  const auto b = nvlsim::make_policy("tree", from_file);

  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    ClusterState state(own.shape);
    std::vector<int> busy;
    for (int gpu = 0; gpu < own.shape.gpus(); ++gpu)
      if (rng() % 3 == 0) busy.push_back(gpu);
    state.apply(nvlsim::Allocation{busy, {}});
    for (int gpus : {1, 3, 4, 6, 8, 16, 24, 40, 64}) {
      for (auto shape : {nvlsim::RequestShape::gpus, nvlsim::RequestShape::nodes}) {
        if (shape == nvlsim::RequestShape::nodes && gpus % 4) continue;
        const nvlsim::JobRequest request{gpus, shape};
        INFO("round " << round << ", " << gpus << " GPUs");
        const auto x = a->place(state, request);
        const auto y = b->place(state, request);
        REQUIRE(x.has_value() == y.has_value());
        if (x) CHECK(x->gpus == y->gpus);
      }
    }
  }
}

TEST_CASE("the block topology.conf of nvlsim's own domains gives block and sub-block the same placements",
          "[slurm_topology]") {
  // 5 domains of 18 trays: levels 18, 36, 72 (the fifth block has no partner at the upper levels).
  PolicyContext own{ClusterShape{5, 18, 4}};
  for (int tray = 0; tray < own.shape.trays(); ++tray) own.node_names.push_back("gb" + std::to_string(tray));
  const std::string text = nvlsim::block_topology_conf_text(nvlsim::make_block_layout(own), own.node_names);
  CHECK_THAT(text, Contains("BlockName=block4 Nodes=gb[72-89]"));
  CHECK_THAT(text, Contains("BlockSizes=18,36,72\n"));
  PolicyContext from_file = own;
  from_file.topology = nvlsim::parse_topology_conf(text, "written.conf");
  CHECK(from_file.topology->blocks.size() == 5);
  for (const char* policy : {"block", "sub-block"}) {
    const auto a = nvlsim::make_policy(policy, own);
    const auto b = nvlsim::make_policy(policy, from_file);
    std::mt19937 rng(11);
    int placed = 0;
    for (int round = 0; round < 40; ++round) {
      ClusterState state(own.shape);
      std::vector<int> busy;
      // Whole blocks are exclusive: leave some domains untouched, use a few GPUs of the others.
      std::vector<bool> touched(own.shape.domains);
      for (int d = 0; d < own.shape.domains; ++d) touched[d] = rng() % 2 == 0;
      for (int gpu = 0; gpu < own.shape.gpus(); ++gpu)
        if (touched[own.shape.domain_of_gpu(gpu)] && rng() % 10 == 0) busy.push_back(gpu);
      state.apply(nvlsim::Allocation{busy, {}});
      for (int gpus : {1, 4, 8, 24, 64, 72, 100, 144, 200}) {
        const nvlsim::JobRequest request{gpus, nvlsim::RequestShape::gpus};
        INFO(policy << ", round " << round << ", " << gpus << " GPUs");
        const auto x = a->place(state, request);
        const auto y = b->place(state, request);
        REQUIRE(x.has_value() == y.has_value());
        if (x) CHECK(x->gpus == y->gpus);
        placed += x.has_value();
      }
    }
    CHECK(placed > 100);  // the comparison covers placements, not only refusals
  }
}
