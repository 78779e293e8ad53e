#include "schedulers/shard_select.hpp"

#include <vector>

#include "schedulers/cons_tres_select.hpp"

namespace nvlsim::cons_tres {
namespace {

// The low byte of a node's scheduling weight counts only the free GPUs it offers a job asking gres/gpu
// (near_gpu_cnt); a shard job asks none, so every tray weighs 0xff and only free CPUs rank them.
constexpr int kShardWeight = 0xff;

}  // namespace

int first_gpu_with_free_shards(const ClusterState& state, int tray, int shards) {
  const int first = state.shape().first_gpu_of_tray(tray);
  for (int gpu = first; gpu < first + state.shape().gpus_per_tray; ++gpu)
    if (state.gpu_has_free_shards(gpu, shards)) return gpu;
  return -1;
}

std::optional<Allocation> place_shards(const ClusterState& state, const JobRequest& request) {
  const int trays = request.gpus;
  if (request.shards > state.shards_per_gpu() || trays > state.shape().trays()) return std::nullopt;
  std::vector<NodeOffer> nodes;
  for (int tray = 0; tray < state.shape().trays(); ++tray) {
    const int cpus = state.free_cpus_in_tray(tray);
    if (cpus > 0 && first_gpu_with_free_shards(state, tray, request.shards) >= 0)
      nodes.push_back({tray, cpus, 1, kShardWeight});
  }
  // As a whole-tray job without a CPU share: n nodes, one CPU on each, no GPU count to reach.
  Demand demand;
  demand.nodes = demand.max_nodes = trays;
  demand.cpus = demand.max_cpus = trays;
  JobRequest no_cpu_share = request;
  no_cpu_share.cpus_per_gpu = 0;
  const auto chosen = eval_nodes(nodes, no_cpu_share, demand);
  if (!chosen) return std::nullopt;
  Allocation allocation;
  allocation.shards = request.shards;
  for (int tray : *chosen) {
    allocation.gpus.push_back(first_gpu_with_free_shards(state, tray, request.shards));
    allocation.cpus.push_back({tray, 1});
  }
  return allocation;
}

}  // namespace nvlsim::cons_tres
