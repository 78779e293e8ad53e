#include "schedulers/shard_select.hpp"

#include <vector>

#include "schedulers/cons_tres_select.hpp"

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

std::optional<Allocation> place_shards(const ClusterState& state, const JobRequest& request) {
  const int trays = request.gpus;
  if (request.shards > state.shards_per_gpu() || trays > state.shape().trays()) return std::nullopt;
  std::vector<NodeOffer> nodes;
  for (int tray = 0; tray < state.shape().trays(); ++tray) {
    const int cpus = state.free_cpus_in_tray(tray);
    if (cpus > 0 && first_gpu_with_free_shards(state, tray, request) >= 0)
      nodes.push_back({tray, cpus, 1, kShardWeight});
  }
  // As a whole-tray job without a CPU share: n nodes, one CPU on each, no GPU count to reach (so the
  // request's cpus_per_gpu plays no part).
  Demand demand;
  demand.nodes = demand.max_nodes = trays;
  demand.cpus = demand.max_cpus = trays;
  const auto chosen = eval_nodes(nodes, request, demand);
  if (!chosen) return std::nullopt;
  Allocation allocation;
  allocation.shards = request.shards;
  for (int tray : *chosen) {
    allocation.gpus.push_back(first_gpu_with_free_shards(state, tray, request));
    allocation.cpus.push_back({tray, 1});
  }
  return allocation;
}

}  // namespace nvlsim::cons_tres
