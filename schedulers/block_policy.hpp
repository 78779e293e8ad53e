#pragma once
// "block": Slurm topology/block with --exclusive=topo for every job (partition Exclusive=TOPO). A job
// takes whole nodes (trays) in the best-fit blocks, and every base block it touches is closed to all
// other jobs while it runs.

#include <memory>
#include <optional>
#include <string>

#include "schedulers/block_layout.hpp"
#include "schedulers/failure_stranding.hpp"
#include "schedulers/placement_policy.hpp"
#include "schedulers/policy_spec.hpp"

namespace nvlsim {

class BlockPolicy final : public PlacementPolicy {
 public:
  // min_block_nodes 0: a base block is usable only when all its trays are idle. K > 0: usable when at
  // least K trays are idle and no job runs in it (trays with a down GPU are left out), as sites do
  // with 16-node blocks on 18-tray racks to survive failed trays. partial_operation (NVLink 6): a tray
  // with a down GPU leaves its block, so min_block_nodes 0 asks only the block's other trays to be idle.
  BlockPolicy(std::string name, BlockLayout layout, int min_block_nodes, bool partial_operation);

  const std::string& name() const override { return name_; }
  // ceil(gpus / 4) idle trays chosen by the block best fit (block_layout.hpp) over usable base blocks,
  // trays in index order inside each block; the GPUs are those trays' lowest ids; held_trays are all
  // trays of the blocks used. O(trays + blocks log blocks) per call.
  std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const override;
  // With every tray of a block needed and one base block per domain, only entirely free domains are
  // usable, and the answer is exact: an aligned group with enough of them. O(domains).
  bool may_fit(const ClusterState& state, const JobRequest& request) const override;
  // In a block no job uses: every idle tray when the down ones leave too few for a block job but
  // repairing them would not; plus the free GPUs on trays with a down GPU, which no job can take whole.
  // Under partial operation a block's idle trays are always enough for it (its down trays left it), so
  // only those free GPUs count, or the idle trays below min_block_nodes.
  int failure_stranded_gpus(const ClusterState& state, std::span<const int> down_trays) const override;

 private:
  // Trays a block with `idle` idle trays offers: all of them, or none when too few.
  int offered_trays(int idle, int block_trays) const;
  // The trays a block of `trays` counts when `isolated` of them have a down GPU and no job.
  int block_size(int trays, int isolated) const { return partial_operation_ ? trays - isolated : trays; }
  // Base blocks are the domains and need every tray idle: a block is usable when its domain is all free.
  // Not under partial operation while a GPU is down, since a block may then be usable with a down tray.
  bool whole_domains(const ClusterState& state) const;

  std::string name_;
  BlockLayout layout_;
  int min_block_nodes_;
  bool partial_operation_;
  int domain_blocks_;  // aligned_block_trays(layout_)
  FailedBlocks failed_blocks_;
};

// Parameters: min_block_nodes=K (1..the largest block's trays; default: every tray of the block).
extern const PolicyType kBlockPolicy;

}  // namespace nvlsim
