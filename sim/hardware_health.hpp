#pragma once
// Which parts are down, counted per GPU so that overlapping failures (a GPU inside a failed tray) repair
// correctly, and the NVLink bandwidth each GPU keeps while NVSwitch chips or links are down, applied to
// its SimGrid port links.

#include <map>
#include <vector>

#include <simgrid/s4u/Link.hpp>

#include "models/failure_event.hpp"
#include "platforms/platform_loader.hpp"

namespace nvlsim {

class HardwareHealth {
 public:
  explicit HardwareHealth(const LoadedPlatform& platform);

  // GPUs that go down or come back up with this failure or repair (only those whose state changes).
  std::vector<int> fail(const FailureEvent& failure);
  std::vector<int> repair(const FailureEvent& failure);

  // Trays with at least one down GPU, ascending.
  const std::vector<int>& down_trays() const { return down_trays_; }

 private:
  std::vector<int> change_gpus(const FailureEvent& failure, int delta);
  void change_nvlink(const FailureEvent& failure, int delta);
  // Sets every port link of the domain to what the domain graph leaves its GPU.
  void apply_domain_bandwidth(int domain);
  // The GPU's NVLink port links (out and in), found through its route to a GPU of the same domain.
  std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*> ports(int gpu);

  const LoadedPlatform& platform_;
  int switches_;
  std::vector<int> down_count_;  // per GPU
  std::vector<int> down_trays_;
  std::map<int, std::vector<int>> failed_switches_;  // per domain: failures in force per switch
  std::map<int, int> failed_links_;                  // nvlink id -> failures in force
  std::map<int, std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*>> ports_;
};

}  // namespace nvlsim
