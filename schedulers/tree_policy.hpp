#pragma once
// "tree": Slurm's topology/tree over the InfiniBand fat tree. NVLink domains are invisible to it; it keeps
// a job under as few leaf switches as it can.

#include <optional>
#include <string>

#include "schedulers/placement_policy.hpp"
#include "schedulers/policy_spec.hpp"
#include "schedulers/switch_tree.hpp"
#include "schedulers/tree_choice.hpp"

namespace nvlsim {

class TreePolicy final : public PlacementPolicy {
 public:
  // Follows the placement rules of Slurm `version`. Throws InputError for more than kMaxTreeSwitches
  // switches.
  TreePolicy(std::string name, SwitchTree tree, SlurmVersion version);

  const std::string& name() const override { return name_; }
  // Slurm's select/cons_tres with topology/tree (_eval_nodes_topo), decision for decision as
  // tests/slurm_oracle checks it against the real Slurm: under the highest switch, the nodes of the
  // lowest scheduling weights that suffice; then leaf switches one at a time, the nearest to those used
  // and the tightest in nodes, their nodes in index order; GPUs on them as per-gpu picks them. Under 24.11
  // a switch fits only with the job's CPUs among its free cores, a nearer leaf wins whenever it fits, and a
  // leaf used up comes off its ancestors' counts.
  // A job without a CPU share or shards that fits in the first leaf Slurm takes, as most do, is placed from
  // the state's counts per leaf (tray_groups below; TreeChoice::choose_in_one_leaf): O(largest leaf +
  // leaves / 64 + that leaf's trays). Otherwise O(trays / 64 + offered trays) to gather the offers (only
  // trays with a free GPU are looked at; for a whole-tray request without a CPU share, only the idle ones,
  // read by runs: cons_tres_runs.hpp), then TreeChoice::choose's cost. A share request (`-N n --gres=shard:K`
  // or mps) takes the same path with every tray that can serve at one weight, and on each chosen tray its
  // first GPU with enough free shares, O(trays x GPUs per tray). Throws std::invalid_argument for fewer than
  // 1 GPU.
  std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const override;
  // As per-gpu's: enough free GPUs, and idle trays for a whole-tray request; for shares, a possible size.
  // O(1).
  bool may_fit(const ClusterState& state, const JobRequest& request) const override;
  // The leaf switches' trays, when the tree allows placing from counts per leaf (TreeChoice::leaf_groups).
  TrayGroups tray_groups() const override { return choice_.leaf_groups(); }

 private:
  std::string name_;
  TreeChoice choice_;
  SlurmVersion version_;
};

// Takes no parameters; the leaf grouping comes from the context (trays_per_leaf, leaves_per_group, topology).
extern const PolicyType kTreePolicy;

}  // namespace nvlsim
