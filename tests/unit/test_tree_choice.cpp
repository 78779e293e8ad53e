#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "schedulers/cluster_state.hpp"
#include "schedulers/cons_tres_select.hpp"
#include "schedulers/policy_spec.hpp"
#include "schedulers/slurm_topology.hpp"
#include "schedulers/switch_tree.hpp"
#include "schedulers/tree_choice.hpp"

using nvlsim::ClusterShape;
using nvlsim::JobRequest;
using nvlsim::PolicyContext;
using nvlsim::RequestShape;
using nvlsim::TreeChoice;
using nvlsim::cons_tres::NodeOffer;

namespace {

PolicyContext with_topology(ClusterShape shape, const std::string& conf) {
  PolicyContext context{shape};
  context.topology = nvlsim::parse_topology_conf(conf, "topology.conf");
  for (int tray = 0; tray < shape.trays(); ++tray)
    context.node_names.push_back("tray-" + std::to_string(tray));
  return context;
}

// A random share of the trays under a switch, each with its free GPUs and cores: from idle machines (one
// free count) to fragmented ones (four), with cores short on some trays.
struct TrayFree {
  int tray, gpus, cpus;
};
std::vector<TrayFree> random_trays(const TreeChoice& choice, const ClusterShape& shape,
                                   std::mt19937& random) {
  const double offered = std::uniform_real_distribution<double>(0.05, 1.0)(random);
  const int weights = std::uniform_int_distribution<int>(1, shape.gpus_per_tray)(random);
  std::bernoulli_distribution take(offered);
  std::uniform_int_distribution<int> free(shape.gpus_per_tray - weights + 1, shape.gpus_per_tray);
  std::uniform_int_distribution<int> cpus(1, shape.cpus_per_tray);
  std::vector<TrayFree> trays;
  for (int tray = 0; tray < shape.trays(); ++tray) {
    if (!choice.under_a_switch(tray) || !take(random)) continue;
    const int gpus = free(random);
    trays.push_back({tray, gpus, cpus(random)});
  }
  return trays;
}

// Their offers to `request`, as `version` makes them.
std::vector<NodeOffer> offers_of(const std::vector<TrayFree>& trays, const ClusterShape& shape,
                                 const JobRequest& request, nvlsim::SlurmVersion version) {
  std::vector<NodeOffer> offers;
  for (const TrayFree& t : trays)
    if (auto offer =
            nvlsim::cons_tres::offer_of(t.tray, t.gpus, t.cpus, shape.gpus_per_tray, request, version))
      offers.push_back(*offer);
  return offers;
}

// Jobs of 1 to 600 GPUs or 1 to 40 whole trays; a CPU share now and then, up to a quarter of a tray's cores
// per GPU, where 24.11's free-core fit decides among leaves.
JobRequest random_request(const ClusterShape& shape, std::mt19937& random) {
  constexpr int kShares[] = {1, 2, 8, 20, 36};
  const int cpus_per_gpu = std::bernoulli_distribution(0.3)(random)
                               ? kShares[std::uniform_int_distribution<int>(0, 4)(random)]
                               : 0;
  if (std::bernoulli_distribution(0.3)(random))
    return {shape.gpus_per_tray * std::uniform_int_distribution<int>(1, 40)(random), RequestShape::nodes,
            cpus_per_gpu};
  const int gpus = std::bernoulli_distribution(0.5)(random)
                       ? std::uniform_int_distribution<int>(1, 8)(random)
                       : std::uniform_int_distribution<int>(9, 600)(random);
  return {gpus, RequestShape::gpus, cpus_per_gpu};
}

struct Checked {
  int placed = 0;  // under 24.11
  int differ = 0;  // cases 22.05 and 24.11 choose differently
};

// `choose` against the per-node walk on random offers and requests, under either Slurm.
Checked check_against_per_node(const PolicyContext& context, std::uint32_t seed, int cases) {
  const TreeChoice older(nvlsim::make_switch_tree(context), nvlsim::SlurmVersion::v22_05);
  const TreeChoice newer(nvlsim::make_switch_tree(context), nvlsim::SlurmVersion::v24_11);
  const nvlsim::ClusterState state(context.shape);
  std::mt19937 random(seed);
  Checked checked;
  for (int c = 0; c < cases; ++c) {
    const JobRequest request = random_request(context.shape, random);
    const std::vector<TrayFree> trays = random_trays(newer, context.shape, random);
    const nvlsim::cons_tres::Demand demand = nvlsim::cons_tres::initial_demand(state, request);
    std::optional<std::vector<int>> chosen[2];
    for (const TreeChoice* choice : {&older, &newer}) {
      const std::vector<NodeOffer> offers = offers_of(trays, context.shape, request, choice->version());
      const auto fast = choice->choose(offers, request, demand);
      const auto walked = choice->choose_node_by_node(offers, request, demand);
      INFO("Slurm " << nvlsim::slurm_version_name(choice->version()) << ", seed " << seed << " case " << c
                    << ": " << request.gpus << " GPUs, " << request.cpus_per_gpu << " cores per GPU, "
                    << offers.size() << " offers");
      REQUIRE(fast == walked);
      chosen[choice == &newer] = fast;
    }
    checked.placed += chosen[1].has_value();
    checked.differ += chosen[0] != chosen[1];
  }
  return checked;
}

}  // namespace

TEST_CASE("tree's per-switch choice agrees with the per-node walk on the fabric's trees", "[tree]") {
  // Two tiers (one spine over every leaf) and three (spine groups under a core), leaves of 2 to 32 trays.
  for (const auto& [racks, trays_per_leaf, leaves_per_group] :
       {std::tuple{8, 32, 0}, {8, 4, 3}, {16, 8, 4}, {64, 32, 8}, {3, 2, 0}}) {
    PolicyContext context{ClusterShape{racks, 18, 4}};
    context.trays_per_leaf = trays_per_leaf;
    context.leaves_per_group = leaves_per_group;
    const Checked checked =
        check_against_per_node(context, static_cast<std::uint32_t>(racks * 100 + trays_per_leaf), 400);
    // Both outcomes occur, so the comparison covers the leaf walk as well as refusals, and 24.11's rules
    // change some choices (few on two tiers, where every leaf is as near as any other).
    CHECK(checked.placed > 40);
    CHECK(checked.placed < 400);
    CHECK(checked.differ > 0);
  }
}

TEST_CASE("tree's per-switch choice agrees with the per-node walk on uneven topologies", "[tree]") {
  const ClusterShape shape{2, 18, 4};
  // Leaves of different sizes, a switch with trays of its own above a leaf, two top switches (no hops
  // between their halves) and trays under no switch.
  const std::string uneven =
      "SwitchName=a Nodes=tray-[0-2]\nSwitchName=b Nodes=tray-[3-10]\nSwitchName=c Nodes=tray-[11-12]\n"
      "SwitchName=mid Switches=a,b Nodes=tray-[13-14]\nSwitchName=top Switches=mid,c\n"
      "SwitchName=d Nodes=tray-[20-27]\nSwitchName=e Nodes=tray-[28-33]\nSwitchName=other Switches=d,e\n";
  const Checked uneven_checked = check_against_per_node(with_topology(shape, uneven), 11, 600);
  CHECK(uneven_checked.placed > 60);
  CHECK(uneven_checked.differ > 0);
  // Parents listed before their children, top switches between other switches, leaves of one tray.
  const std::string top_down =
      "SwitchName=s0 Switches=s2,s3\nSwitchName=s1 Nodes=tray-[30-35]\nSwitchName=s2 Switches=s4,s5\n"
      "SwitchName=s6 Switches=s1,s7\nSwitchName=s3 Nodes=tray-0\nSwitchName=s4 Nodes=tray-[1-12]\n"
      "SwitchName=s5 Nodes=tray-[13-20]\nSwitchName=s7 Nodes=tray-[21-29]\n";
  const Checked top_down_checked = check_against_per_node(with_topology(shape, top_down), 13, 600);
  CHECK(top_down_checked.placed > 60);
  CHECK(top_down_checked.differ > 0);
  // A leaf under two parents: no single path up, so `choose` is the per-node walk itself.
  const std::string shared =
      "SwitchName=a Nodes=tray-[0-17]\nSwitchName=b Nodes=tray-[18-35]\n"
      "SwitchName=p Switches=a,b\nSwitchName=q Switches=b\n";
  CHECK(check_against_per_node(with_topology(shape, shared), 12, 200).placed > 20);
}
