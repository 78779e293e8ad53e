// tree's rules that changed from Slurm 22.05 to 24.11 (topology/tree's _eval_nodes_topo), each on the
// smallest tree that shows it. The expected placements are the real daemons' (both releases ran each
// scenario on idle trays of 4 GPUs and 144 cores, untyped gres.conf), but for the last case, which no
// request of nvlsim's makes and which follows 24.11's code.

#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "schedulers/cluster_state.hpp"
#include "schedulers/cons_tres_select.hpp"
#include "schedulers/policy_registry.hpp"
#include "schedulers/slurm_topology.hpp"
#include "schedulers/switch_tree.hpp"
#include "schedulers/tree_choice.hpp"

using nvlsim::ClusterShape;
using nvlsim::JobRequest;
using nvlsim::PolicyContext;
using nvlsim::RequestShape;
using nvlsim::SlurmVersion;

namespace {

PolicyContext with_topology(int trays, const std::string& conf, SlurmVersion version) {
  PolicyContext context{ClusterShape{1, trays, 4}};
  for (int tray = 0; tray < trays; ++tray) context.node_names.push_back("tray-" + std::to_string(tray));
  context.topology = nvlsim::parse_topology_conf(conf, "topology.conf", context.node_names);
  context.slurm_version = version;
  return context;
}

// What `tree` gives the request on idle trays, as the oracle notes write Slurm's answers:
// "tray-0:0-3/144 tray-1:0-1/72" (GPU indices and cores per tray); "" when it would not start.
std::string place(const PolicyContext& context, JobRequest request) {
  const nvlsim::ClusterState state(context.shape);
  const auto allocation = nvlsim::make_policy("tree", context)->place(state, request);
  if (!allocation) return "";
  std::map<int, std::vector<int>> gpus;
  for (int gpu : allocation->gpus) gpus[gpu / 4].push_back(gpu % 4);
  std::string out;
  for (const nvlsim::TrayCpus& held : allocation->cpus) {
    const std::vector<int>& on = gpus.at(held.tray);
    const std::string indices =
        on.size() == 1 ? std::to_string(on.front()) : fmt::format("{}-{}", on.front(), on.back());
    out += fmt::format("{}tray-{}:{}/{}", out.empty() ? "" : " ", held.tray, indices, held.cpus);
  }
  return out;
}

JobRequest gpus(int count, int cpus_per_gpu = 0) {
  return {count, RequestShape::gpus, cpus_per_gpu};
}
JobRequest nodes(int count, int cpus_per_gpu = 0) {
  return {4 * count, RequestShape::nodes, cpus_per_gpu};
}

}  // namespace

TEST_CASE("tree: a nearer leaf wins when it compares no worse (22.05) or when it fits (24.11)",
          "[tree][slurm-version]") {
  // -N 4: no leaf fits, lB is the largest and goes first; then one more tray: lA and lC both fit, lC is
  // nearer (the same parent) but looser.
  const std::string conf =
      "SwitchName=lA Nodes=tray-0\nSwitchName=lC Nodes=tray-[1-2]\nSwitchName=lB Nodes=tray-[3-5]\n"
      "SwitchName=s1 Switches=lC,lB\nSwitchName=s2 Switches=lA\nSwitchName=root Switches=s1,s2\n";
  CHECK(place(with_topology(6, conf, SlurmVersion::v22_05), nodes(4)) ==
        "tray-0:0-3/1 tray-3:0-3/1 tray-4:0-3/1 tray-5:0-3/1");
  CHECK(place(with_topology(6, conf, SlurmVersion::v24_11), nodes(4)) ==
        "tray-1:0-3/1 tray-3:0-3/1 tray-4:0-3/1 tray-5:0-3/1");
  // --gpus=16 needs one node: every leaf fits, the tightest (lA) first; the same in both.
  for (const SlurmVersion version : {SlurmVersion::v22_05, SlurmVersion::v24_11})
    CHECK(place(with_topology(6, conf, version), gpus(16)) ==
          "tray-0:0-3/1 tray-1:0-3/1 tray-2:0-3/1 tray-3:0-3/1");
}

TEST_CASE("tree: under 24.11 a leaf fits only with the free cores the job still needs",
          "[tree][slurm-version]") {
  const std::string conf =
      "SwitchName=l0 Nodes=tray-0\nSwitchName=l1 Nodes=tray-[1-2]\nSwitchName=root Switches=l0,l1\n";
  // 6 GPUs x 36 cores: l0's 144 free cores fall short of 216, so 24.11 takes l1 rather than the tighter l0.
  CHECK(place(with_topology(3, conf, SlurmVersion::v22_05), gpus(6, 36)) == "tray-0:0-3/144 tray-1:0-1/72");
  CHECK(place(with_topology(3, conf, SlurmVersion::v24_11), gpus(6, 36)) == "tray-1:0-3/144 tray-2:0-1/144");
  for (const SlurmVersion version : {SlurmVersion::v22_05, SlurmVersion::v24_11})
    CHECK(place(with_topology(3, conf, version), gpus(6)) == "tray-0:0-3/1 tray-1:0-1/1");
}

TEST_CASE("tree: under 24.11 a leaf used up comes off its ancestors' counts", "[tree][slurm-version]") {
  // -N 5: leaf b first (m0's 4 trays outnumber m1's 2), then 3 more. c is nearer than a; 22.05 takes it, as
  // m0 still counts 4 and fits; 24.11 counts m0 at 2 once b is used, neither c nor a fits even one level
  // up, and c is not taken for being nearer: a first, then c.
  const std::string conf =
      "SwitchName=a Nodes=tray-[0-1]\nSwitchName=b Nodes=tray-[2-3]\nSwitchName=c Nodes=tray-[4-5]\n"
      "SwitchName=m0 Switches=c,b\nSwitchName=m1 Switches=a\nSwitchName=top Switches=m0,m1\n";
  for (const int cores : {0, 36}) {
    const int held = cores > 0 ? 4 * cores : 1;
    CHECK(place(with_topology(6, conf, SlurmVersion::v22_05), nodes(5, cores)) ==
          fmt::format("tray-0:0-3/{0} tray-2:0-3/{0} tray-3:0-3/{0} tray-4:0-3/{0} tray-5:0-3/{0}", held));
    CHECK(place(with_topology(6, conf, SlurmVersion::v24_11), nodes(5, cores)) ==
          fmt::format("tray-0:0-3/{0} tray-1:0-3/{0} tray-2:0-3/{0} tray-3:0-3/{0} tray-4:0-3/{0}", held));
  }
}

TEST_CASE("tree: under 24.11 the top switch needs the job's CPUs among its free cores",
          "[tree][slurm-version]") {
  // Two top switches; the later one (rB, one tray) wins ties. 8 GPUs x 36 cores: 22.05 takes rB and finds
  // too few GPUs below it (Slurm refuses the job); 24.11 passes rB over for its 144 free cores.
  const std::string conf =
      "SwitchName=la Nodes=tray-[0-1]\nSwitchName=lb Nodes=tray-2\nSwitchName=rA Switches=la\n"
      "SwitchName=rB Switches=lb\n";
  CHECK(place(with_topology(3, conf, SlurmVersion::v22_05), gpus(8, 36)).empty());
  CHECK(place(with_topology(3, conf, SlurmVersion::v24_11), gpus(8, 36)) == "tray-0:0-3/144 tray-1:0-3/144");
  for (const SlurmVersion version : {SlurmVersion::v22_05, SlurmVersion::v24_11}) {
    CHECK(place(with_topology(3, conf, version), gpus(8)).empty());  // one CPU: rB in both
    CHECK(place(with_topology(3, conf, version), gpus(4, 36)) == "tray-2:0-3/144");
  }
}

TEST_CASE("tree: under 24.11 the leaves holding nodes taken outright come off their ancestors' counts",
          "[tree][slurm-version]") {
  // Offers of two weights (no request of nvlsim's makes them with more than one node needed; the per-node
  // walk follows Slurm for any). Trays 4 and 5 weigh least and are taken outright; leaf l0 gives trays 1
  // and 2 as well. Two more: l1 (tray 6) or l3 and l5 (trays 7, 8), compared by their parents. 24.11 has
  // taken those 2 trays off l0 and m0 (m0: 2 fits) and off l4 and m1 (m1: 1 does not): l1 first. 22.05
  // counts m0 at 4 and m1 at 3, both fit, and the tighter m1 wins.
  PolicyContext context = with_topology(9,
                                        "SwitchName=l2 Nodes=tray-0\nSwitchName=l0 Nodes=tray-[1-4]\n"
                                        "SwitchName=l4 Nodes=tray-5\nSwitchName=l1 Nodes=tray-6\n"
                                        "SwitchName=l3 Nodes=tray-7\nSwitchName=l5 Nodes=tray-8\n"
                                        "SwitchName=m0 Switches=l0,l1\nSwitchName=m1 Switches=l2,l3,l4,l5\n"
                                        "SwitchName=top Switches=m0,m1\n",
                                        SlurmVersion::v22_05);
  std::vector<nvlsim::cons_tres::NodeOffer> offers;
  for (const int tray : {1, 2, 4, 5, 6, 7, 8})
    offers.push_back({tray, 144, 4, tray == 4 || tray == 5 ? 251 : 253, 144});
  const JobRequest request = nodes(6);
  nvlsim::cons_tres::Demand demand;
  demand.nodes = demand.max_nodes = demand.cpus = demand.max_cpus = 6;
  const auto chosen = [&](SlurmVersion version) {
    return nvlsim::TreeChoice(nvlsim::make_switch_tree(context), version)
        .choose_node_by_node(offers, request, demand);
  };
  CHECK(chosen(SlurmVersion::v22_05) == std::vector<int>{4, 5, 1, 2, 7, 8});
  CHECK(chosen(SlurmVersion::v24_11) == std::vector<int>{4, 5, 1, 2, 6, 7});
}
