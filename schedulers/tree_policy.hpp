#pragma once
// "tree": Slurm's topology/tree over the InfiniBand fat tree. NVLink domains are invisible to it; it keeps
// a job under as few leaf switches as it can.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "schedulers/cons_tres_select.hpp"
#include "schedulers/placement_policy.hpp"
#include "schedulers/policy_spec.hpp"
#include "schedulers/switch_tree.hpp"

namespace nvlsim {

// Switches tree takes: it keeps the hops between every two, 256 MiB at this size.
inline constexpr std::size_t kMaxTreeSwitches = 8192;

class TreePolicy final : public PlacementPolicy {
 public:
  // Throws InputError for more than kMaxTreeSwitches switches.
  TreePolicy(std::string name, SwitchTree tree);

  const std::string& name() const override { return name_; }
  // Slurm 22.05's select/cons_tres with topology/tree (_eval_nodes_topo), decision for decision as
  // tests/slurm_oracle checks it against the real Slurm: under the highest switch, the nodes of the
  // lowest scheduling weights that suffice; then leaf switches one at a time, the nearest to those used
  // and the tightest in nodes, their nodes in index order; GPUs on them as per-gpu picks them.
  // O(trays / 64 + offered trays x levels + leaves x switches) per call: only trays with a free GPU are
  // looked at. A share request (`-N n --gres=shard:K` or mps) takes the same path with every tray that can
  // serve at one weight, and on each chosen tray its first GPU with enough free shares, O(trays x GPUs per
  // tray). Throws std::invalid_argument for fewer than 1 GPU.
  std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const override;
  // As per-gpu's: enough free GPUs, and idle trays for a whole-tray request; for shares, a possible size.
  // O(1).
  bool may_fit(const ClusterState& state, const JobRequest& request) const override;

 private:
  // _eval_nodes_topo over the offered nodes (ascending): the trays chosen, ascending, or nullopt.
  std::optional<std::vector<int>> choose_trays(std::span<const cons_tres::NodeOffer> node,
                                               const JobRequest& request, cons_tres::Demand demand) const;

  std::string name_;
  SwitchTree tree_;
  std::vector<std::vector<int>> above_;  // per tray: every switch it is below, ascending
  std::vector<int> parent_;              // per switch: its parent, or 0 for a top switch as Slurm keeps it
  std::vector<std::vector<std::uint32_t>> distance_;  // switch hops between switches; kUnreachable if none
};

// Takes no parameters; the leaf grouping comes from the context (trays_per_leaf, leaves_per_group, topology).
extern const PolicyType kTreePolicy;

}  // namespace nvlsim
