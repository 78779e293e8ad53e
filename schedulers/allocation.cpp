#include "schedulers/allocation.hpp"

namespace nvlsim {

void charge_cpus(Allocation& allocation, int cpus_per_gpu, const ClusterShape& shape) {
  allocation.cpus.clear();
  for (int gpu : allocation.gpus) {
    const int tray = shape.tray_of_gpu(gpu);
    if (allocation.cpus.empty() || allocation.cpus.back().tray != tray) {
      allocation.cpus.push_back({tray, cpus_per_gpu > 0 ? 0 : 1});
    }
    allocation.cpus.back().cpus += cpus_per_gpu;
  }
}

}  // namespace nvlsim
