#pragma once
// Slurm's select/cons_tres, as it chooses nodes, GPUs and cores for a GPU job: 22.05's job_test.c
// (_eval_nodes and its helpers) and 24.11's topology/common/eval_nodes.c, with gres_select_filter.c's GPU
// pick and dist_tasks.c's cores. Trays are Slurm nodes. Shared by `per-gpu` (no topology plugin), `tree`
// (topology/tree) and the block policies (topology/block), which differ in how they choose among nodes.
// The two releases differ only for jobs with a CPU share (docs/policies.md, "Slurm versions").

#include <optional>
#include <span>
#include <vector>

#include "schedulers/allocation.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/job_request.hpp"
#include "schedulers/slurm_version.hpp"

namespace nvlsim::cons_tres {

// What one node offers the job, as Slurm's can_job_run_on_node and _select_cores compute it.
struct NodeOffer {
  int tray = 0;
  // The cores the node counts for in the choice: its free cores; under 24.11 with a CPU share K, K for
  // each GPU it can give the job (gres_filter_sock_core caps it so), the same for every node of a weight.
  int cpus = 0;
  int gpus = 0;       // GPUs the job may use here (free GPUs, fewer when its CPU share runs short)
  int weight = 0;     // scheduling weight: lower first; nodes offering more of the job's GPUs are lower
  int free_cpus = 0;  // the node's free cores (what a switch's or block's CPU sum counts)
  int free_gpus = 0;  // the node's free GPUs
  bool operator==(const NodeOffer&) const = default;
};

// The job's totals as _eval_nodes counts them down.
struct Demand {
  int nodes = 0;          // rem_nodes: nodes still required
  int cpus = 0;           // rem_cpus: CPUs still required
  int max_cpus = 0;       // rem_max_cpus: CPUs the job may still take
  int max_nodes = 0;      // nodes it may still take
  int gpus_per_job = 0;   // GPUs counted per job (--gpus); 0 for a per-node request
  int gpus_taken = 0;     // GPUs the chosen nodes give so far (per-job requests)
  int min_gres_cpus = 0;  // CPUs a node must give for its GPUs (per-node requests with a CPU share)

  bool satisfied() const { return nodes <= 0 && cpus <= 0 && gpus_taken >= gpus_per_job; }
};

// The node's offer to the request, or nullopt when Slurm would not consider it (no free GPU, too few
// free GPUs or cores for the request's share).
std::optional<NodeOffer> offer(const ClusterState& state, int tray, const JobRequest& request,
                               SlurmVersion version);
// The same for a tray with `free_gpus` GPUs and `free_cpus` cores free, of `gpus_per_tray`.
std::optional<NodeOffer> offer_of(int tray, int free_gpus, int free_cpus, int gpus_per_tray,
                                  const JobRequest& request, SlurmVersion version);

// A cheap necessary condition for a placement (PlacementPolicy::may_fit): enough free GPUs, and for a
// whole-tray request enough idle trays (a tray with every GPU free has every core free as well).
bool may_fit(const ClusterState& state, const JobRequest& request);

// The job's starting demand.
Demand initial_demand(const ClusterState& state, const JobRequest& request);

// Takes node `node` (as _eval_nodes does once it has chosen it): counts down `demand`.
void take_node(const NodeOffer& node, const JobRequest& request, Demand& demand, SlurmVersion version);

// _eval_nodes without a topology: nodes in index order form runs of equal weight; rounds pick the lowest
// weight, then a run that suffices with the fewest CPUs, else the largest; inside a run a single node
// that suffices with the fewest CPUs, else nodes in order. Returns the chosen trays in the order Slurm
// takes them, or nullopt.
std::optional<std::vector<int>> eval_nodes(std::span<const NodeOffer> nodes, const JobRequest& request,
                                           Demand demand, SlurmVersion version);

// eval_nodes over the offers of every tray with a free GPU, ascending: the whole of Slurm's choice of nodes
// without a topology. O(trays / 64 + trays with a free GPU).
std::optional<std::vector<int>> eval_offers(const ClusterState& state, const JobRequest& request,
                                            SlurmVersion version);

// The GPUs and cores Slurm gives the job on the chosen trays, given in the order they were taken (that
// order sets 22.05's cores; see slurm_cores). For a per-job count each node in index order takes its
// lowest free GPUs, at most what leaves one for every later node; for a per-node request every GPU of
// each tray.
Allocation pick_gpus(const ClusterState& state, std::span<const int> taken, const JobRequest& request,
                     SlurmVersion version);

// The cores a `--gpus=G --cpus-per-gpu=K` job holds on each tray of `trays` (ascending), taken in the
// order `taken` gives them, on the state before it starts (dist_tasks.c after the node choice):
// - 22.05: each tray may hold up to its free cores, cut to K x the GPUs still missing where it was taken
//   (_cpus_to_use); K x G cores are spread over the trays, one each, then one more per tray in index
//   order round after round, up to those bounds. So a tray may hold far more or fewer than K per GPU.
// - 24.11: each tray holds K x the GPUs it could give (its free GPUs, at most G and its free cores / K),
//   the last tray taken included (dist_tasks_gres_min_cpus).
std::vector<int> slurm_cores(const ClusterState& state, std::span<const int> trays,
                             std::span<const int> taken, const JobRequest& request, SlurmVersion version);

}  // namespace nvlsim::cons_tres
