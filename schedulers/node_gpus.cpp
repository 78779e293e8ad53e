#include "schedulers/node_gpus.hpp"

#include <algorithm>

namespace nvlsim {

int nodes_for(const ClusterShape& shape, int gpus) {
  return (gpus + shape.gpus_per_tray - 1) / shape.gpus_per_tray;
}

std::vector<int> gpus_on_trays(const ClusterShape& shape, std::vector<int> trays, int gpus) {
  std::sort(trays.begin(), trays.end());
  std::vector<int> ids;
  ids.reserve(gpus);
  for (int tray : trays) {
    const int first = shape.first_gpu_of_tray(tray);
    for (int gpu = first; gpu < first + shape.gpus_per_tray && static_cast<int>(ids.size()) < gpus; ++gpu) {
      ids.push_back(gpu);
    }
  }
  return ids;
}

bool tray_busy(const ClusterState& state, int tray) {
  if (state.tray_held(tray)) return true;
  const int first = state.shape().first_gpu_of_tray(tray);
  for (int gpu = first; gpu < first + state.shape().gpus_per_tray; ++gpu) {
    if (!state.gpu_free(gpu) && !state.gpu_down(gpu)) return true;
  }
  return false;
}

}  // namespace nvlsim
