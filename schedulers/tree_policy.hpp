#pragma once
// "tree": Slurm's topology/tree over the InfiniBand fat tree. NVLink domains are invisible to it; it keeps
// a job under as low a switch as possible.

#include <memory>
#include <optional>
#include <string>

#include "schedulers/placement_policy.hpp"
#include "schedulers/policy_spec.hpp"
#include "schedulers/switch_tree.hpp"

namespace nvlsim {

class TreePolicy final : public PlacementPolicy {
 public:
  TreePolicy(std::string name, SwitchTree tree);

  const std::string& name() const override { return name_; }
  // The lowest-level switch whose trays have enough free GPUs, best fit at that level (fewest free GPUs
  // that suffice, lowest index on ties). Under it, leaves as Slurm's best fit: the tightest leaf that
  // holds the rest, else the leaf with the most free GPUs taken whole, repeatedly (lowest index on ties).
  // Inside a leaf, as per-gpu: a part of at most one tray's GPUs goes to the tightest tray, otherwise trays
  // in index order, sharing trays. O(trays + switches) per call.
  std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const override;

 private:
  std::string name_;
  SwitchTree tree_;
};

// Takes no parameters; the leaf grouping comes from the context (trays_per_leaf, leaves_per_group, topology).
std::unique_ptr<PlacementPolicy> make_tree_policy(const PolicySpec& spec, const PolicyContext& context);

}  // namespace nvlsim
