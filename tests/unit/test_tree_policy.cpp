#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "models/ib_fabric.hpp"
#include "placement_fixtures.hpp"
#include "schedulers/policy_registry.hpp"
#include "schedulers/slurm_topology.hpp"
#include "schedulers/switch_tree.hpp"
#include "schedulers/tree_policy.hpp"
#include "slurm_scenario.hpp"

using nvlsim::Allocation;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::JobRequest;
using nvlsim::PolicyContext;
using nvlsim::RequestShape;
using nvlsim::test::concat;
using nvlsim::test::ids;
using nvlsim::test::SlurmScenario;

namespace {

// Eight NVL72 racks, 144 trays of 4 GPUs. With 32 trays per leaf: leaves 0..3 hold 128 GPUs each
// (GPUs 0..127, 128..255, 256..383, 384..511), leaf 4 holds trays 128..143 (GPUs 512..575).
constexpr ClusterShape kEightRacks{8, 18, 4};

std::vector<int> place(const ClusterState& state, JobRequest request, int leaves_per_group = 0) {
  PolicyContext context{kEightRacks};
  context.leaves_per_group = leaves_per_group;
  const auto allocation = nvlsim::make_policy("tree", context)->place(state, request);
  if (!allocation) return {-1};
  CHECK(allocation->held_trays.empty());
  return allocation->gpus;
}

JobRequest gpus(int count) {
  return {count, RequestShape::gpus, 0};
}
JobRequest nodes(int count) {
  return {4 * count, RequestShape::nodes, 0};
}

}  // namespace

TEST_CASE("tree: Slurm's leaf choice for the oracle notes' last requests", "[tree][slurm]") {
  // Two leaves of one rack each under a spine; the state of the notes before request I.
  PolicyContext context{ClusterShape{2, 18, 4, 64}};
  context.topology = nvlsim::parse_topology_conf(
      "SwitchName=leaf0 Nodes=tray-[0-17]\nSwitchName=leaf1 Nodes=tray-[18-35]\nSwitchName=spine "
      "Switches=leaf[0-1]\n",
      "topology.conf");
  for (int tray = 0; tray < 36; ++tray) context.node_names.push_back("tray-" + std::to_string(tray));
  for (const RequestShape form : {RequestShape::gpus, RequestShape::nodes}) {
    SlurmScenario s(nvlsim::make_policy("tree", context), context.shape, 0);
    for (const auto& [name, size] :
         {std::pair{"A", 4}, {"B", 8}, {"C", 2}, {"D", 12}, {"E", 1}, {"F", 36}, {"G", 3}})
      s.submit(name, size);
    s.end("B");
    s.end("E");
    CHECK(s.submit("H", 5) == "tray-1:0-3 tray-2:0");
    // --gpus=16 counts nodes as one still needed: the leaf with the fewest usable nodes (leaf 0, whose
    // only idle tray is 17) goes first. -N 4 needs four nodes, which only leaf 1 has.
    CHECK(s.submit("I", 16, form) == (form == RequestShape::gpus
                                          ? "tray-17:0-3 tray-18:0-3 tray-19:0-3 tray-20:0-3"
                                          : "tray-18:0-3 tray-19:0-3 tray-20:0-3 tray-21:0-3"));
  }
}

TEST_CASE("tree: a GPU-count request starts in the leaf with the fewest usable nodes", "[tree]") {
  const ClusterState state(kEightRacks);
  // Leaf 4 (16 trays) is the tightest in nodes; 64 GPUs fit there exactly.
  CHECK(place(state, gpus(64)) == ids(512, 576));
  // 100 GPUs: leaf 4 whole, then the first of the leaves at equal distance and size: leaf 0.
  CHECK(place(state, gpus(100)) == concat(ids(0, 36), ids(512, 576)));
  // 25 whole trays need 25 nodes: only leaves 0..3 have them; the first of the tied.
  CHECK(place(state, nodes(25)) == ids(0, 100));
}

TEST_CASE("tree: lower weights first, and the nearest leaves under spine groups", "[tree]") {
  ClusterState state(kEightRacks);
  state.apply(Allocation{ids(0, 2), {}});  // tray 0 offers 2 GPUs: a higher weight for jobs of 3 or more
  // Trays with 4 free GPUs come first; leaf 4 is the tightest leaf in nodes.
  CHECK(place(state, gpus(4)) == ids(512, 516));
  // Groups of 2 leaves: {0,1}, {2,3}, {4}. 180 GPUs: leaf 4 whole (64); then leaves 0..3 tie in
  // nodes: among leaves that do not fit, their groups' node counts decide, and group {4}'s is not
  // among them; the first, leaf 0 without tray 0 (its weight is higher), then all of the rest.
  CHECK(place(state, gpus(180), 2) == concat(ids(4, 120), ids(512, 576)));
  CHECK(place(state, gpus(575)) == std::vector{-1});  // 574 free
}

TEST_CASE("tree refuses more switches than its all-pairs hop table is sized for", "[tree][errors]") {
  nvlsim::SwitchTree tree;
  const std::size_t switches = nvlsim::kMaxTreeSwitches + 1;
  tree.names.assign(switches, "s");
  tree.trays.assign(switches, {});
  tree.children.assign(switches, {});
  tree.level.assign(switches, 0);
  for (std::size_t s = 0; s < switches; ++s) tree.bottom_up.push_back(static_cast<int>(s));
  CHECK_THROWS_WITH(
      nvlsim::TreePolicy("tree", tree, nvlsim::SlurmVersion::v22_05),
      "tree: 8193 switches, more than the 8192 it handles (it keeps the hops between every two)");
  tree.names.pop_back();
  tree.trays.pop_back();
  tree.children.pop_back();
  tree.level.pop_back();
  tree.bottom_up.pop_back();
  CHECK_NOTHROW(nvlsim::TreePolicy("tree", tree, nvlsim::SlurmVersion::v22_05));
}

TEST_CASE("tree's default switches are the fabric's: tray groups under pods under a core", "[tree]") {
  const ClusterShape shape{64, 18, 4};
  PolicyContext context{shape};
  nvlsim::follow_fabric(context, nvlsim::IbFabric(shape, nvlsim::FabricParams{}));
  CHECK(context.trays_per_leaf == 32);
  CHECK(context.leaves_per_group == 8);
  const nvlsim::SwitchTree tree = nvlsim::make_switch_tree(context);
  // 36 tray groups, 5 pods, 1 core; pod 4 holds the last 4 groups, as the fabric's pod 4.
  REQUIRE(tree.names.size() == 42);
  CHECK(tree.children[40] == std::vector<int>{32, 33, 34, 35});
  CHECK(tree.children[41] == std::vector<int>{36, 37, 38, 39, 40});
  // Two racks fit one spine layer: no groups.
  PolicyContext small{ClusterShape{2, 18, 4}};
  nvlsim::follow_fabric(small, nvlsim::IbFabric(small.shape, nvlsim::FabricParams{}));
  CHECK(small.leaves_per_group == 0);
}
