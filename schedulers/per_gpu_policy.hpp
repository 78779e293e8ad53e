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
  // Follows the placement rules of Slurm `version` (docs/policies.md, "Slurm versions").
  explicit PerGpuPolicy(SlurmVersion version) : version_(version) {}

  const std::string& name() const override { return name_; }
  // Slurm's select/cons_tres without a topology plugin (schedulers/cons_tres_select.hpp), decision
  // for decision as tests/slurm_oracle checks it against the real Slurm. O(trays / 64 + trays with a
  // free GPU) per call; without a CPU share, O(trays / 64 + runs of idle trays) for a whole-tray request
  // and O(trays / 64 + trays with its GPUs free), in a tight loop, for one of at most a tray's GPUs
  // (schedulers/cons_tres_runs.hpp). A shard request is placed as Slurm places `-N gpus --gres=shard:K`
  // (schedulers/shard_select.hpp; O(trays x GPUs per tray)); more shards than a GPU has never fit.
  // Throws std::invalid_argument for fewer than 1 GPU (1 tray).
  std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const override;
  // Enough free GPUs, and idle trays for a whole-tray request; for shards, a possible size. O(1).
  bool may_fit(const ClusterState& state, const JobRequest& request) const override;

 private:
  std::string name_ = "per-gpu";
  SlurmVersion version_;
};

// Takes no parameters.
extern const PolicyType kPerGpuPolicy;

}  // namespace nvlsim
