#pragma once
// "per-gpu": Slurm's default placement without a topology plugin (select/cons_tres on a flat network).
// Trays are Slurm nodes; racks and NVLink domains are invisible to it, so a job may span domains.

#include <memory>
#include <optional>
#include <string>

#include "schedulers/placement_policy.hpp"
#include "schedulers/policy_spec.hpp"

namespace nvlsim {

class PerGpuPolicy final : public PlacementPolicy {
 public:
  const std::string& name() const override { return name_; }
  // A request that fits in one tray goes to the fitting tray with the fewest free GPUs. Otherwise it
  // fills runs of consecutive usable trays: the tightest run that holds the rest, else the largest
  // run whole and continue. O(trays / 64 + runs) per call, plus the trays it takes. Throws
  // std::invalid_argument for fewer than 1 GPU.
  std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const override;

 private:
  std::string name_ = "per-gpu";
};

// Takes no parameters.
std::unique_ptr<PlacementPolicy> make_per_gpu_policy(const PolicySpec& spec, const PolicyContext& context);

}  // namespace nvlsim
