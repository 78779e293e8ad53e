#pragma once
// Which GPUs are free, busy or down, and which trays are held by exclusive jobs.
// This is all a policy sees of the machine; it knows nothing of SimGrid.

#include <cstdint>
#include <vector>

#include "models/cluster_shape.hpp"
#include "schedulers/allocation.hpp"

namespace nvlsim {

class ClusterState {
 public:
  explicit ClusterState(ClusterShape shape);

  const ClusterShape& shape() const { return shape_; }

  // A GPU is free when it is up, not allocated, and its tray is not held.
  bool gpu_free(int gpu) const {
    return busy_[gpu] == 0 && down_[gpu] == 0 && held_[shape_.tray_of_gpu(gpu)] == 0;
  }
  bool gpu_down(int gpu) const { return down_[gpu] != 0; }
  bool tray_held(int tray) const { return held_[tray] != 0; }
  // Free GPUs of a tray (0 when the tray is held).
  int free_gpus_in_tray(int tray) const { return free_in_tray_[tray]; }
  // True when the tray is not held and every GPU of it is up and unallocated.
  // A held tray counts 0 free, so only a tray with every GPU free reaches gpus_per_tray.
  bool tray_idle(int tray) const { return free_in_tray_[tray] == shape_.gpus_per_tray; }
  int free_gpus_in_domain(int domain) const { return free_in_domain_[domain]; }
  int free_gpus() const { return free_total_; }
  int down_gpus() const { return down_total_; }
  int busy_gpus() const { return busy_total_; }

  // Marks the allocation's GPUs busy and its trays held. The GPUs must be free.
  void apply(const Allocation& allocation);
  // Undoes apply().
  void release(const Allocation& allocation);
  // A down GPU is never free. Marking a busy GPU down leaves its job's bookkeeping to the caller.
  void set_down(int gpu, bool down);

 private:
  void recount_tray(int tray);

  ClusterShape shape_;
  std::vector<std::uint8_t> busy_;  // per GPU
  std::vector<std::uint8_t> down_;  // per GPU
  std::vector<int> held_;           // per tray: how many allocations hold it
  std::vector<int> free_in_tray_;
  std::vector<int> free_in_domain_;
  int free_total_ = 0;
  int down_total_ = 0;
  int busy_total_ = 0;
};

}  // namespace nvlsim
