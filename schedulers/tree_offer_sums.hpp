#pragma once
// The offers tree's per-switch choice needs, summed per switch from the state's trays by free count rather
// than built tray by tray: on a large machine, most of a tree placement went to an offer from every tray
// with a free GPU, and grew with the machine.

#include "schedulers/cluster_state.hpp"
#include "schedulers/job_request.hpp"
#include "schedulers/tree_choice.hpp"

namespace nvlsim {

// Whether sum_offers answers the request: no shards and no CPU share, so that a tray's offer depends only
// on its free GPUs, given a free core.
bool offer_sums_decide(const JobRequest& request);

// The offers of the trays attached to each switch, summed per weight. Nodes and GPUs are exact; CPUs and
// free cores are one per node, lower bounds. O(switches with trays x gpus_per_tray x (their trays / 64 + 1)).
// Requires offer_sums_decide and choice.ranged().
void sum_offers(const ClusterState& state, const TreeChoice& choice, const JobRequest& request,
                TreeChoice::SwitchSums& sums);

}  // namespace nvlsim
