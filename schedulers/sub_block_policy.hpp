#pragma once
// "sub-block": Slurm 24.11's topology/block without exclusivity, jobs of whole trays in segments
// (--segment). Every job is placed as Slurm places its request (schedulers/block_eval.hpp): a `--gpus=G`
// job inside one base block on any trays with free GPUs, a `-N` job by block levels, segment by segment.

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

// Jobs of at least min_gpus GPUs get segments of `nodes` nodes (the first rule that matches, rules in
// descending min_gpus).
struct SegmentRule {
  int min_gpus = 0;
  int nodes = 1;
};

// NVIDIA's guidance for GB200 NVL72 (DOMAIN.md §3): 16 nodes from 128 GPUs, 4 nodes from 32, else 1.
inline const std::vector<SegmentRule> kNvidiaSegmentRules = {{128, 16}, {32, 4}, {0, 1}};

struct SegmentOptions {
  int segment = -1;     // nodes per segment; -1 = by `rules`, 0 = the whole job
  bool spread = false;  // --spread-segments (Slurm 25.11): no two segments of a job in one base block
  bool consolidate =
      false;  // --consolidate-segments (25.11): all segments inside one block of the job's level
  std::vector<SegmentRule> rules = kNvidiaSegmentRules;
  // False for the built-in table: a job that fits in one base block asks no segment, as in Slurm without
  // --segment; the table sizes the segments of jobs that must span blocks anyway. True when the user gave
  // the table, which then applies to every job.
  bool rules_for_small_jobs = false;
  // nvlsim's rule before it was checked against Slurm 24.11: a segment Slurm refuses becomes the largest
  // one Slurm accepts that divides the job's nodes (at most the asked size and a base block), and table
  // segments that could never fit the machine become whole base blocks. Off: refused as Slurm refuses.
  bool round = false;
};

// The --segment a `-N nodes` job of `gpus` GPUs asks (0: none): options.segment, or by the rule table when
// it is -1; none when it is 0 or at least the job's nodes, and under the built-in table for a job of at most
// a base block (`base_block_nodes`). May be one Slurm refuses (segment_refusal).
int asked_segment(const SegmentOptions& options, int gpus, int nodes, int base_block_nodes);
// Why Slurm 24.11 refuses `-N nodes --segment=segment` on base blocks of `base_block_nodes`, or "" when it
// accepts it.
std::string segment_refusal(int segment, int nodes, int base_block_nodes);

class SubBlockPolicy final : public PlacementPolicy {
 public:
  SubBlockPolicy(std::string name, BlockLayout layout, SegmentOptions options, const ClusterShape& shape);

  const std::string& name() const override { return name_; }
  // The request's options and --segment=S when the job asks one.
  std::vector<std::string> slurm_options(const JobRequest& request) const override;
  // Slurm's choice (BlockEval) over every tray with a free GPU, the job's segments as segment_for gives
  // them; GPUs and cores as select/cons_tres gives them. A share request (`-N n --gres=shard:K`) goes the
  // same way with the trays that can serve, and takes on each its first GPU with enough free shares.
  // O(trays) for the offers, then BlockEval.
  std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const override;
  // Whole trays (and shares, asked as `-N`) keep fitting as resources are released; a GPU count may not
  // (BlockEval picks a block by its trays, then may find its GPUs short).
  bool monotone(const ClusterState& state, const JobRequest& request) const override {
    (void)state;
    return request.shards > 0 || request.shape == RequestShape::nodes;
  }
  // Enough free GPUs, and for a whole-tray request idle trays; for a GPU count, a base block with that many
  // free; for shares, a possible size. O(1), O(blocks) for a GPU count.
  bool may_fit(const ClusterState& state, const JobRequest& request) const override;
  // Slurm's reason when the job's segment is one it refuses, or it is a GPU count no base block holds.
  std::string refusal(const JobRequest& request) const override;
  // A block with A idle trays offers floor(A / s) x s of them to segments of s nodes (s = the `segment`
  // parameter; 1 under the rule table, whose segments vary by job): the trays that repairing the down
  // ones would add to that beyond themselves, plus the free GPUs on trays with a down GPU.
  int failure_stranded_gpus(const ClusterState& state, std::span<const int> down_trays) const override;

 private:
  // The options for this request: a job class's segment (request.segment_nodes) replaces the built-in
  // table, never a segment or table the spec gives, since those are what a comparison varies.
  SegmentOptions options_for(const JobRequest& request) const;
  // The segments the job is placed in: the asked segment, rounded when options.round.
  Segments segment_for(const JobRequest& request) const;

  std::string name_;
  BlockLayout layout_;
  BlockEval eval_;
  SegmentOptions options_;
  FailedBlocks failed_blocks_;
  int gpus_per_tray_;
  // By segment size s: the trays of all base blocks that whole s-tray segments can cover (index 0 unused;
  // 0 past the largest block), for round's fallback.
  std::vector<int> segment_room_;
};

// Parameters: segment=S (0 = none; default: the rule table), spread=0|1, consolidate=0|1,
// segment_rules=G>S/G>S/... (jobs of at least G GPUs get S-node segments; default 128>16/32>4/0>1), and
// round=0|1.
extern const PolicyType kSubBlockPolicy;

}  // namespace nvlsim
