#pragma once
// Which parts are down, counted per GPU so that overlapping failures (a GPU inside a failed tray) repair
// correctly, and the NVLink bandwidth each GPU keeps while NVSwitch chips or links are down, applied to
// its ports through the network.

#include <map>
#include <vector>

#include "models/failure_event.hpp"
#include "platforms/platform_spec.hpp"
#include "sim/core/network.hpp"

namespace nvlsim {

class HardwareHealth {
 public:
  HardwareHealth(const PlatformSpec& platform, Network& network);

  // GPUs that go down or come back up with this failure or repair (only those whose state changes).
  std::vector<int> fail(const FailureEvent& failure);
  std::vector<int> repair(const FailureEvent& failure);

  // Trays with at least one down GPU, ascending.
  const std::vector<int>& down_trays() const { return down_trays_; }

 private:
  std::vector<int> change_gpus(const FailureEvent& failure, int delta);
  void change_nvlink(const FailureEvent& failure, int delta);
  // Sets every GPU of the domain to what the domain graph leaves it.
  void apply_domain_bandwidth(int domain);

  const PlatformSpec& platform_;
  Network& network_;
  int switches_;
  std::vector<int> down_count_;  // per GPU
  std::vector<int> down_trays_;
  std::map<int, std::vector<int>> failed_switches_;  // per domain: failures in force per switch
  std::map<int, int> failed_links_;                  // nvlink id -> failures in force
};

}  // namespace nvlsim
