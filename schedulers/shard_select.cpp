#include "schedulers/shard_select.hpp"

#include <algorithm>

namespace nvlsim::cons_tres {
namespace {

// The low byte of a node's scheduling weight counts only the free GPUs it offers a job asking gres/gpu
// (near_gpu_cnt); a shard or MPS job asks none, so every tray weighs 0xff and only free CPUs rank them.
constexpr int kShardWeight = 0xff;

}  // namespace

int first_gpu_with_free_shards(const ClusterState& state, int tray, const JobRequest& request) {
  const int first = state.shape().first_gpu_of_tray(tray);
  const int end = first + state.shape().gpus_per_tray;
  if (request.gres == SharedGres::mps) {
    // gres_use_busy_dev: with ONE_SHARING, a node with MPS allocated offers only its GPU holding it.
    for (int gpu = first; gpu < end; ++gpu)
      if (state.shards_used(gpu) > 0) return state.gpu_has_free_shards(gpu, request.shards) ? gpu : -1;
  }
  for (int gpu = first; gpu < end; ++gpu)
    if (state.gpu_has_free_shards(gpu, request.shards)) return gpu;
  return -1;
}

std::vector<NodeOffer> share_offers(const ClusterState& state, const JobRequest& request) {
  std::vector<NodeOffer> nodes;
  for (int tray = 0; tray < state.shape().trays(); ++tray) {
    const int cpus = state.free_cpus_in_tray(tray);
    if (cpus > 0 && first_gpu_with_free_shards(state, tray, request) >= 0)
      nodes.push_back({tray, cpus, 1, kShardWeight, cpus, state.free_gpus_in_tray(tray)});
  }
  return nodes;
}

Demand share_demand(const JobRequest& request) {
  // As a whole-tray job without a CPU share: n nodes, one CPU on each, no GPU count to reach (so the
  // request's cpus_per_gpu plays no part).
  Demand demand;
  demand.nodes = demand.max_nodes = request.gpus;
  demand.cpus = demand.max_cpus = request.gpus;
  return demand;
}

Allocation share_allocation(const ClusterState& state, std::span<const int> trays,
                            const JobRequest& request) {
  Allocation allocation;
  allocation.shards = request.shards;
  std::vector<int> ascending(trays.begin(), trays.end());
  std::sort(ascending.begin(), ascending.end());
  for (int tray : ascending) {
    allocation.gpus.push_back(first_gpu_with_free_shards(state, tray, request));
    allocation.cpus.push_back({tray, 1});
  }
  return allocation;
}

bool shares_may_fit(const ClusterState& state, const JobRequest& request) {
  return request.shards <= state.shards_per_gpu() && request.gpus <= state.shape().trays();
}

std::optional<Allocation> place_shards(const ClusterState& state, const JobRequest& request,
                                       SlurmVersion version) {
  if (!shares_may_fit(state, request)) return std::nullopt;
  const auto chosen = eval_nodes(share_offers(state, request), request, share_demand(request), version);
  if (!chosen) return std::nullopt;
  return share_allocation(state, *chosen, request);
}

}  // namespace nvlsim::cons_tres
