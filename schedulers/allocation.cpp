#include "schedulers/allocation.hpp"

#include <algorithm>
#include <cstddef>

namespace nvlsim {

void charge_cpus(Allocation& allocation, int cpus_per_gpu, const ClusterShape& shape) {
  allocation.cpus.clear();
  // At most one entry per tray from the first GPU's to the last's: one allocation, not one per doubling.
  if (!allocation.gpus.empty())
    allocation.cpus.reserve(std::min<std::size_t>(
        allocation.gpus.size(),
        shape.tray_of_gpu(allocation.gpus.back()) - shape.tray_of_gpu(allocation.gpus.front()) + 1));
  for (int gpu : allocation.gpus) {
    const int tray = shape.tray_of_gpu(gpu);
    if (allocation.cpus.empty() || allocation.cpus.back().tray != tray) {
      allocation.cpus.push_back({tray, cpus_per_gpu > 0 ? 0 : 1});
    }
    allocation.cpus.back().cpus += cpus_per_gpu;
  }
}

}  // namespace nvlsim
