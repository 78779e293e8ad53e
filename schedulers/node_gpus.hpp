#pragma once
// Turning a choice of whole nodes (trays) into the GPU ids a job runs on.

#include <vector>

#include "schedulers/cluster_state.hpp"

namespace nvlsim {

// Nodes needed for `gpus` whole-node GPUs: ceil(gpus / gpus_per_tray).
int nodes_for(const ClusterShape& shape, int gpus);

// GPU ids of idle `trays`, ascending: every GPU of each tray, except that the highest tray gives only what
// is left of `gpus` (lowest ids first).
std::vector<int> gpus_on_trays(const ClusterShape& shape, std::vector<int> trays, int gpus);

// True when some job holds the tray or runs on one of its GPUs; a tray that is only down is not busy.
bool tray_busy(const ClusterState& state, int tray);

}  // namespace nvlsim
