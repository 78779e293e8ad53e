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
  shape.for_each_tray_stretch(allocation.gpus, [&](int tray, std::size_t first, std::size_t end) {
    const int gpus = static_cast<int>(end - first);
    allocation.cpus.push_back({tray, cpus_per_gpu > 0 ? cpus_per_gpu * gpus : 1});
  });
}

}  // namespace nvlsim
