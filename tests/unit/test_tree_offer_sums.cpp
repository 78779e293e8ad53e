// tree's choice from the offers summed per switch (sum_offers, TreeChoice::choose_from_sums) and from the
// state's counts per leaf (TreeChoice::choose_in_one_leaf) against its choice from every tray's offer, on
// machines fragmented by random jobs, releases and failures, under Slurm 22.05's rules and 24.11's.

#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "random_steps.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/cons_tres_select.hpp"
#include "schedulers/policy_spec.hpp"
#include "schedulers/slurm_topology.hpp"
#include "schedulers/switch_tree.hpp"
#include "schedulers/tree_choice.hpp"
#include "schedulers/tree_offer_sums.hpp"

using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::JobRequest;
using nvlsim::PolicyContext;
using nvlsim::RequestShape;
using nvlsim::TreeChoice;
using nvlsim::cons_tres::NodeOffer;

namespace {

constexpr ClusterShape kFourRacks{4, 18, 4};  // 72 trays

struct Tally {
  int decided = 0;
  int undecided = 0;
  int placed = 0;
  // The same for the choice from counts per leaf, when the tree allows it.
  int one_leaf_decided = 0;
  int one_leaf_undecided = 0;
  int one_leaf_placed = 0;
};

// The offers of every tray under a switch with a free GPU, as the choice's Slurm makes them.
void offers_on(const TreeChoice& choice, const ClusterState& state, const JobRequest& request,
               std::vector<NodeOffer>& every) {
  every.clear();
  state.for_each_tray_with_free_gpus([&](int tray) {
    if (!choice.under_a_switch(tray)) return;
    if (auto offer = nvlsim::cons_tres::offer(state, tray, request, choice.version()))
      every.push_back(*offer);
  });
}

// For requests of whole trays and of GPUs anywhere, on one state: the sums are those of every tray's
// offer (CPUs and free cores one per node), and a decision from them, or from the state's counts per leaf
// when the tree allows it, is the choice from every offer. With a CPU share, which the sums leave aside,
// the per-switch choice from every offer is the per-node walk's.
void compare_on(const TreeChoice& choice, const ClusterState& state, TreeChoice::SwitchSums& sums,
                Tally& tally) {
  std::vector<NodeOffer> every;
  for (const JobRequest request :
       {JobRequest{8, RequestShape::nodes, 36}, JobRequest{3, RequestShape::gpus, 36},
        JobRequest{23, RequestShape::gpus, 20}, JobRequest{90, RequestShape::gpus, 1}}) {
    REQUIRE_FALSE(nvlsim::offer_sums_decide(request));
    offers_on(choice, state, request, every);
    const nvlsim::cons_tres::Demand demand = nvlsim::cons_tres::initial_demand(state, request);
    REQUIRE(choice.choose(every, request, demand) == choice.choose_node_by_node(every, request, demand));
  }
  for (const JobRequest request : {JobRequest{4, RequestShape::nodes}, JobRequest{12, RequestShape::nodes},
                                   JobRequest{40, RequestShape::nodes}, JobRequest{1}, JobRequest{3},
                                   JobRequest{6}, JobRequest{23}, JobRequest{90}}) {
    INFO(request.gpus << " GPUs, " << (request.shape == RequestShape::nodes ? "whole trays" : "anywhere"));
    REQUIRE(nvlsim::offer_sums_decide(request));
    offers_on(choice, state, request, every);
    nvlsim::sum_offers(state, choice, request, sums);
    for (std::size_t h = 0; h < choice.homes().size(); ++h) {
      const nvlsim::TrayRun& trays = choice.home_trays()[h];
      std::vector<TreeChoice::OfferSum> want(static_cast<std::size_t>(sums.weights));
      for (const NodeOffer& offer : every) {
        if (offer.tray < trays.first_tray || offer.tray >= trays.end_tray) continue;
        REQUIRE(offer.weight >= sums.low);
        REQUIRE(offer.weight < sums.low + sums.weights);
        TreeChoice::OfferSum& sum = want[static_cast<std::size_t>(offer.weight - sums.low)];
        ++sum.nodes;
        sum.gpus += offer.gpus;
      }
      for (int w = 0; w < sums.weights; ++w) {
        const TreeChoice::OfferSum& got = sums.at(choice.homes()[h], w);
        REQUIRE(got.nodes == want[static_cast<std::size_t>(w)].nodes);
        REQUIRE(got.cpus == got.nodes);
        REQUIRE(got.free_cpus == got.nodes);
        REQUIRE(got.gpus == want[static_cast<std::size_t>(w)].gpus);
      }
    }
    const nvlsim::cons_tres::Demand demand = nvlsim::cons_tres::initial_demand(state, request);
    const TreeChoice::OfferAt offer_at = [&](int tray) {
      return nvlsim::cons_tres::offer(state, tray, request, choice.version());
    };
    if (choice.leaf_groups() != nullptr) {
      REQUIRE(state.tray_groups().groups() == choice.leaf_groups());
      const TreeChoice::Decision one_leaf =
          choice.choose_in_one_leaf(state.tray_groups(), request, demand, offer_at);
      if (one_leaf.decided) {
        REQUIRE(one_leaf.trays == choice.choose(every, request, demand));
        ++tally.one_leaf_decided;
        tally.one_leaf_placed += one_leaf.trays.has_value();
      } else {
        ++tally.one_leaf_undecided;
      }
    }
    const TreeChoice::Decision decision = choice.choose_from_sums(sums, request, demand, offer_at);
    if (!decision.decided) {
      ++tally.undecided;
      continue;
    }
    REQUIRE(decision.trays == choice.choose(every, request, demand));
    ++tally.decided;
    tally.placed += decision.trays.has_value();
  }
}

constexpr nvlsim::SlurmVersion kVersions[] = {nvlsim::SlurmVersion::v22_05, nvlsim::SlurmVersion::v24_11};

// compare_on after every random step, under Slurm `version`'s rules.
Tally compare_on_random_machine(const PolicyContext& context, unsigned seed, nvlsim::SlurmVersion version) {
  const TreeChoice choice(nvlsim::make_switch_tree(context), version);
  REQUIRE(choice.ranged());
  Tally tally;
  TreeChoice::SwitchSums sums;
  nvlsim::test::random_machine(
      context.shape, seed, [&](const ClusterState& state) { compare_on(choice, state, sums, tally); },
      choice.leaf_groups());
  return tally;
}

// The choice from counts per leaf gave each outcome: a placement in one leaf, no placement, and cases it
// leaves to the sums (several leaves needed, or no tray with the best weight's free GPUs).
void require_one_leaf_outcomes(const Tally& tally) {
  CHECK(tally.one_leaf_placed > 5000);
  CHECK(tally.one_leaf_decided - tally.one_leaf_placed > 2000);
  CHECK(tally.one_leaf_undecided > 5000);
}

// Trays named tray-0, tray-1, ..., as the topologies below name them.
PolicyContext named_trays() {
  PolicyContext context{kFourRacks};
  for (int tray = 0; tray < kFourRacks.trays(); ++tray)
    context.node_names.push_back("tray-" + std::to_string(tray));
  return context;
}

}  // namespace

TEST_CASE("tree's choice from per-switch sums is its choice from every offer", "[tree]") {
  // Leaves of 4, 8 and 32 trays (the last one short), under one spine or in spine groups under a core.
  for (const auto& [trays_per_leaf, leaves_per_group] : {std::tuple{4, 3}, {8, 0}, {32, 0}, {8, 2}}) {
    INFO(trays_per_leaf << " trays per leaf, " << leaves_per_group << " leaves per group");
    PolicyContext context{kFourRacks};
    context.trays_per_leaf = trays_per_leaf;
    context.leaves_per_group = leaves_per_group;
    for (const nvlsim::SlurmVersion version : kVersions) {
      INFO("Slurm " << nvlsim::slurm_version_name(version));
      const Tally tally =
          compare_on_random_machine(context, static_cast<unsigned>(trays_per_leaf * 10 + 1), version);
      // Both outcomes, and the cases only the per-node walk decides (a weight too few under the top switch).
      CHECK(tally.placed > 2000);
      CHECK(tally.decided - tally.placed > 500);
      CHECK(tally.undecided > 100);
      require_one_leaf_outcomes(tally);
    }
  }
}

TEST_CASE(
    "tree's choice from counts per leaf follows a written topology of uneven leaves and trays under none",
    "[tree]") {
  PolicyContext context = named_trays();
  context.topology = nvlsim::parse_topology_conf(
      "SwitchName=a Nodes=tray-[0-2]\nSwitchName=b Nodes=tray-[3-30]\nSwitchName=c Nodes=tray-[31-40]\n"
      "SwitchName=mid Switches=a,b\nSwitchName=top Switches=mid,c\n",
      "topology.conf", context.node_names);
  for (const nvlsim::SlurmVersion version : kVersions) {
    INFO("Slurm " << nvlsim::slurm_version_name(version));
    require_one_leaf_outcomes(compare_on_random_machine(context, 9, version));
  }
}

TEST_CASE("tree's sums follow a written topology: uneven leaves, trays above a leaf, trays under none",
          "[tree]") {
  PolicyContext context = named_trays();
  context.topology = nvlsim::parse_topology_conf(
      "SwitchName=a Nodes=tray-[0-2]\nSwitchName=b Nodes=tray-[3-30]\nSwitchName=c Nodes=tray-[31-40]\n"
      "SwitchName=mid Switches=a,b Nodes=tray-[41-44]\nSwitchName=top Switches=mid,c\n"
      "SwitchName=d Nodes=tray-[50-60]\nSwitchName=e Nodes=tray-[61-69]\nSwitchName=other Switches=d,e\n",
      "topology.conf", context.node_names);
  for (const nvlsim::SlurmVersion version : kVersions) {
    INFO("Slurm " << nvlsim::slurm_version_name(version));
    const Tally tally = compare_on_random_machine(context, 5, version);
    // Two top switches and trays above a leaf: no choice from counts per leaf.
    CHECK(tally.one_leaf_decided + tally.one_leaf_undecided == 0);
    CHECK(tally.placed > 2000);
    CHECK(tally.decided - tally.placed > 500);
    CHECK(tally.undecided > 50);
  }
}

TEST_CASE("tree chooses from counts per leaf only under one top switch with trays on leaves alone",
          "[tree]") {
  // Two top switches; then one top switch with trays of its own above its leaves.
  for (const char* topology :
       {"SwitchName=a Nodes=tray-[0-9]\nSwitchName=b Nodes=tray-[10-30]\nSwitchName=top Switches=a,b\n"
        "SwitchName=c Nodes=tray-[31-40]\nSwitchName=d Nodes=tray-[41-71]\nSwitchName=other Switches=c,d\n",
        "SwitchName=a Nodes=tray-[0-2]\nSwitchName=b Nodes=tray-[3-30]\nSwitchName=mid Switches=a,b "
        "Nodes=tray-[31-44]\nSwitchName=top Switches=mid\n"}) {
    INFO(topology);
    PolicyContext context = named_trays();
    context.topology = nvlsim::parse_topology_conf(topology, "topology.conf", context.node_names);
    for (const nvlsim::SlurmVersion version : kVersions) {
      INFO("Slurm " << nvlsim::slurm_version_name(version));
      const Tally tally = compare_on_random_machine(context, 13, version);
      CHECK(tally.one_leaf_decided + tally.one_leaf_undecided == 0);
      CHECK(tally.placed > 2000);
    }
  }
}

TEST_CASE("tree leaves the sums aside for a CPU share, shards or trays out of order", "[tree]") {
  CHECK_FALSE(nvlsim::offer_sums_decide(JobRequest{8, RequestShape::gpus, 2}));
  JobRequest shards{1};
  shards.shards = 1;
  CHECK_FALSE(nvlsim::offer_sums_decide(shards));
  PolicyContext context = named_trays();
  context.topology = nvlsim::parse_topology_conf(
      "SwitchName=a Nodes=tray-[0-2],tray-9\nSwitchName=b Nodes=tray-[3-8]\nSwitchName=top Switches=a,b\n",
      "topology.conf", context.node_names);
  for (const nvlsim::SlurmVersion version : kVersions)
    CHECK_FALSE(TreeChoice(nvlsim::make_switch_tree(context), version).ranged());
}
