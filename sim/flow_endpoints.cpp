#include "sim/flow_endpoints.hpp"

namespace nvlsim {

FlowEndpoints flow_endpoints(const LoadedPlatform& platform, const std::vector<std::vector<int>>& domain_gpus,
                             const PlannedFlow& flow) {
  if (flow.plane == Plane::nvlink) {
    const auto& gpus = domain_gpus[flow.src_domain];
    return {platform.gpu_hosts[gpus[0]], platform.gpu_hosts[gpus[1]]};
  }
  // Stay on the source NIC's rail when the destination domain has a GPU there: rail peers meet one hop
  // above their leaf, as NCCL's rail-aligned rings do.
  const int src = domain_gpus[flow.src_domain][0];
  const auto& dst_gpus = domain_gpus[flow.dst_domain];
  const int rails = platform.spec.shape.gpus_per_tray;
  int dst = dst_gpus[0];
  for (int gpu : dst_gpus)
    if (gpu % rails == src % rails) {
      dst = gpu;
      break;
    }
  return {platform.nic_hosts[src], platform.nic_hosts[dst]};
}

std::vector<std::vector<int>> group_by_domain(const std::vector<int>& gpus, const ClusterShape& shape) {
  std::vector<std::vector<int>> groups;
  int last = -1;
  for (int gpu : gpus) {
    const int d = shape.domain_of_gpu(gpu);
    if (d != last) groups.emplace_back();
    groups.back().push_back(gpu);
    last = d;
  }
  return groups;
}

}  // namespace nvlsim
