#include "schedulers/cluster_state.hpp"

#include <stdexcept>
#include <string>

namespace nvlsim {

ClusterState::ClusterState(ClusterShape shape)
    : shape_(shape),
      busy_(shape.gpus(), 0),
      down_(shape.gpus(), 0),
      held_(shape.trays(), 0),
      free_in_tray_(shape.trays(), shape.gpus_per_tray),
      free_in_domain_(shape.domains, shape.gpus_per_domain()),
      free_total_(shape.gpus()) {}

void ClusterState::apply(const Allocation& allocation) {
  for (int tray : allocation.held_trays) {
    if (tray < 0 || tray >= shape_.trays()) {
      throw std::logic_error("ClusterState::apply: tray " + std::to_string(tray) + " does not exist");
    }
  }
  const auto& gpus = allocation.gpus;
  // Mark as we check, so a GPU listed twice is caught; undo the marks before throwing.
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const int gpu = gpus[i];
    if (gpu < 0 || gpu >= shape_.gpus() || !gpu_free(gpu)) {
      for (std::size_t j = 0; j < i; ++j) busy_[gpus[j]] = 0;
      throw std::logic_error("ClusterState::apply: GPU " + std::to_string(gpu) + " is not free");
    }
    busy_[gpu] = 1;
  }
  busy_total_ += static_cast<int>(gpus.size());
  for (int tray : allocation.held_trays) ++held_[tray];
  for (int gpu : gpus) recount_tray(shape_.tray_of_gpu(gpu));
  for (int tray : allocation.held_trays) recount_tray(tray);
}

void ClusterState::release(const Allocation& allocation) {
  for (int tray : allocation.held_trays) {
    if (tray < 0 || tray >= shape_.trays() || held_[tray] == 0) {
      throw std::logic_error("ClusterState::release: tray " + std::to_string(tray) + " is not held");
    }
  }
  const auto& gpus = allocation.gpus;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const int gpu = gpus[i];
    if (gpu < 0 || gpu >= shape_.gpus() || busy_[gpu] == 0) {
      for (std::size_t j = 0; j < i; ++j) busy_[gpus[j]] = 1;
      throw std::logic_error("ClusterState::release: GPU " + std::to_string(gpu) + " is not allocated");
    }
    busy_[gpu] = 0;
  }
  busy_total_ -= static_cast<int>(gpus.size());
  for (int tray : allocation.held_trays) --held_[tray];
  for (int gpu : gpus) recount_tray(shape_.tray_of_gpu(gpu));
  for (int tray : allocation.held_trays) recount_tray(tray);
}

void ClusterState::set_down(int gpu, bool down) {
  down_total_ += (down ? 1 : 0) - down_[gpu];
  down_[gpu] = down ? 1 : 0;
  recount_tray(shape_.tray_of_gpu(gpu));
}

// Recomputes one tray from its GPUs and moves the domain and total counters by the difference,
// which keeps every counter exact however many times a tray is recounted.
void ClusterState::recount_tray(int tray) {
  int free = 0;
  if (held_[tray] == 0) {
    const int first = shape_.first_gpu_of_tray(tray);
    for (int gpu = first; gpu < first + shape_.gpus_per_tray; ++gpu)
      free += busy_[gpu] == 0 && down_[gpu] == 0;
  }
  const int delta = free - free_in_tray_[tray];
  free_in_tray_[tray] = free;
  free_in_domain_[shape_.domain_of_tray(tray)] += delta;
  free_total_ += delta;
}

}  // namespace nvlsim
