#include "schedulers/node_gpus.hpp"

#include <algorithm>
#include <cstddef>

namespace nvlsim {

int nodes_for(const ClusterShape& shape, int gpus) {
  return (gpus + shape.gpus_per_tray - 1) / shape.gpus_per_tray;
}

std::vector<int> gpus_on_trays(const ClusterShape& shape, std::vector<int> trays, int gpus) {
  // Policies mostly pass the trays in order already; checking is cheaper than sorting them again.
  if (!std::is_sorted(trays.begin(), trays.end())) std::sort(trays.begin(), trays.end());
  std::vector<int> ids;
  ids.reserve(std::min(static_cast<std::size_t>(std::max(gpus, 0)), trays.size() * shape.gpus_per_tray));
  for (int tray : trays) {
    const int take = std::min(shape.gpus_per_tray, gpus - static_cast<int>(ids.size()));
    if (take <= 0) break;
    const int first = shape.first_gpu_of_tray(tray);
    for (int k = 0; k < take; ++k) ids.push_back(first + k);
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
