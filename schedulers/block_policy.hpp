#pragma once
// "block": Slurm 24.11's topology/block with --exclusive=topo for every job (partition ExclusiveTopo).
// A job may use only base blocks in which no job runs, chosen and filled as Slurm does
// (schedulers/block_eval.hpp), and every base block it touches is closed to all other jobs while it runs.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schedulers/block_eval.hpp"
#include "schedulers/block_layout.hpp"
#include "schedulers/failure_stranding.hpp"
#include "schedulers/placement_policy.hpp"
#include "schedulers/policy_spec.hpp"

namespace nvlsim {

class BlockPolicy final : public PlacementPolicy {
 public:
  // min_block_nodes 0: Slurm's rule, a base block no job runs in is open, its down trays left out. K > 0,
  // nvlsim's own operator rule (Slurm has none): such a block is open only while at least K of its trays
  // are idle with every GPU up; K = the block's trays closes a block at any failure in it.
  BlockPolicy(std::string name, BlockLayout layout, int min_block_nodes, const ClusterShape& shape);

  const std::string& name() const override { return name_; }
  // The request's options and --exclusive=topo.
  std::vector<std::string> slurm_options(const JobRequest& request) const override;
  // Slurm's choice (BlockEval) over the trays of open base blocks; GPUs and cores as select/cons_tres gives
  // them; held_trays are all trays of the base blocks used. A share request is placed as that many whole
  // GPUs: nothing could share a GPU in a block the job holds alone. O(trays) for the offers, then BlockEval.
  std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const override;
  // Whole trays keep fitting as resources are released; so does a GPU count while no GPU is down, since
  // every open block then has all its GPUs free. With down GPUs it may not (BlockEval picks a block by its
  // trays, then may find its GPUs short).
  bool monotone(const ClusterState& state, const JobRequest& request) const override {
    return state.down_gpus() == 0 || (request.shards == 0 && request.shape == RequestShape::nodes);
  }
  // Slurm's reason when the request is a GPU count no base block holds.
  std::string refusal(const JobRequest& request) const override;
  // Enough free GPUs and, for a whole-tray request, idle trays; for a GPU count, a base block with that
  // many free. While no GPU is down and the blocks are the domains, exactly whether place() succeeds: the
  // open blocks are then the domains with every GPU free, counted by the state. O(1), else O(blocks).
  bool may_fit(const ClusterState& state, const JobRequest& request) const override;
  // In a block no job uses: the idle trays the down ones leave below min_block_nodes when repairing them
  // would not; plus the free GPUs on trays with a down GPU, which no whole-tray job can take.
  int failure_stranded_gpus(const ClusterState& state, std::span<const int> down_trays) const override;

 private:
  // Whether base block b is open to a job: no job runs in it, and min_block_nodes' rule holds.
  bool open(const ClusterState& state, int b) const;
  // The domains open to a job, when the blocks are the domains: those with every GPU free (min_block_nodes
  // asks at most a block's trays) and the open ones with a GPU down.
  OpenDomains open_domains(const ClusterState& state) const;
  // Trays a block with `idle` idle trays offers under min_block_nodes' rule.
  int offered_trays(int idle) const { return min_block_nodes_ == 0 || idle >= min_block_nodes_ ? idle : 0; }

  std::string name_;
  BlockLayout layout_;
  BlockEval eval_;
  int min_block_nodes_;
  FailedBlocks failed_blocks_;
  int gpus_per_tray_;
};

// Parameters: min_block_nodes=K (1..the largest block's trays; default: none, as Slurm).
extern const PolicyType kBlockPolicy;

}  // namespace nvlsim
