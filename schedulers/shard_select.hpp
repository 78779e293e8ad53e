#pragma once
// Slurm 22.05's select/cons_tres for gres/shard and gres/mps requests (`-N n --gres=shard:K`), as
// docs/sharing.md found it by experiment: the trays by the same _eval_nodes runs as GPU jobs, every tray
// that can serve at one weight; on each tray the first GPU with K free shares (MPS: the tray's MPS GPU).

#include <optional>
#include <span>
#include <vector>

#include "schedulers/allocation.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/cons_tres_select.hpp"
#include "schedulers/job_request.hpp"

namespace nvlsim::cons_tres {

// The GPU of the tray that the request's shares come from, or -1 when none can serve: the lowest GPU up,
// not held whole and with enough free shares (shard rule 2: first fit, not best fit); for MPS, while the
// tray has MPS in use, only the GPU holding it (MPS rule 2, one_sharing).
int first_gpu_with_free_shards(const ClusterState& state, int tray, const JobRequest& request);

// The trays that can serve the share request (a free CPU, a GPU by first_gpu_with_free_shards), all at one
// scheduling weight, as _eval_nodes and _eval_nodes_topo see them; ascending.
std::vector<NodeOffer> share_offers(const ClusterState& state, const JobRequest& request);
// What the request asks of _eval_nodes: `request.gpus` nodes and one CPU on each, no GPU count.
Demand share_demand(const JobRequest& request);
// The shares on the chosen trays (in any order): on each, its first GPU with enough free shares, and one CPU.
Allocation share_allocation(const ClusterState& state, std::span<const int> trays, const JobRequest& request);
// True unless the request can never fit: more shares than a GPU has, or more trays than the machine.
bool shares_may_fit(const ClusterState& state, const JobRequest& request);

// Where Slurm starts `request.shards` shares on each of `request.gpus` trays, or nullopt when it would not
// start it now. More shards than a GPU has never fit (Slurm keeps such a job pending forever), so a caller
// that places on an empty machine first rejects it. Each tray gives one CPU. O(trays x GPUs per tray).
std::optional<Allocation> place_shards(const ClusterState& state, const JobRequest& request,
                                       SlurmVersion version);

}  // namespace nvlsim::cons_tres
