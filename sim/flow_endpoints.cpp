#include "sim/flow_endpoints.hpp"

namespace nvlsim {

FlowEndpoints flow_endpoints(const LoadedPlatform& platform, const std::vector<std::vector<int>>& domain_gpus,
                             const PlannedFlow& flow) {
  if (flow.plane == Plane::nvlink) {
    const auto& gpus = domain_gpus[flow.src_domain];
    return {platform.gpu_hosts[gpus[0]], platform.gpu_hosts[gpus[1]]};
  }
  return {platform.nic_hosts[domain_gpus[flow.src_domain][0]],
          platform.nic_hosts[domain_gpus[flow.dst_domain][0]]};
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
