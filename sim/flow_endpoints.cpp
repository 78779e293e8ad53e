#include "sim/flow_endpoints.hpp"

namespace nvlsim {

FlowEndpoints flow_endpoints(const LoadedPlatform& platform, const std::vector<std::vector<int>>& group_gpus,
                             const PlannedFlow& flow) {
  if (flow.between_zones()) {
    const int from = group_gpus[flow.src_group][flow.src_member];
    const int to = group_gpus[flow.dst_group][flow.dst_member];
    return {platform.gpu_hosts[from], platform.gpu_hosts[to], from, to};
  }
  if (flow.plane == Plane::nvlink) {
    const auto& gpus = group_gpus[flow.src_group];
    return {platform.gpu_hosts[gpus[0]], platform.gpu_hosts[gpus[1]], gpus[0], gpus[1]};
  }
  // Stay on the source NIC's rail when the destination domain has a GPU there: rail peers meet one hop
  // above their leaf, as NCCL's rail-aligned rings do.
  const int src = group_gpus[flow.src_group][0];
  const auto& dst_gpus = group_gpus[flow.dst_group];
  const int rails = platform.spec.shape.gpus_per_tray;
  int dst = dst_gpus[0];
  for (int gpu : dst_gpus)
    if (gpu % rails == src % rails) {
      dst = gpu;
      break;
    }
  return {platform.nic_hosts[src], platform.nic_hosts[dst], src, dst};
}

}  // namespace nvlsim
