#pragma once
// "sub-block": Slurm topology/block without exclusivity, with segments (--segment). Jobs of at least one
// tray's GPUs take whole idle trays, placed segment by segment with the block best fit; smaller jobs
// share a tray in the best-fit block.

#include <memory>
#include <optional>
#include <string>
#include <vector>

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
  int segment = -1;          // nodes per segment; -1 = by `rules`, 0 = the whole job
  bool spread = false;       // --spread-segments: no two segments of a job in one base block
  bool consolidate = false;  // --consolidate-segments: all segments inside one block of the job's level
  std::vector<SegmentRule> rules = kNvidiaSegmentRules;
  // False for the built-in table: a job that fits in one base block stays one segment, as in Slurm
  // without --segment; the table sizes the segments of jobs that must span blocks anyway. True when
  // the user gave the table, which then applies to every job.
  bool rules_for_small_jobs = false;
};

// Nodes per segment for a job of `gpus` GPUs on `nodes` nodes: options.segment, or by the rule table when
// it is -1 (a job no rule matches is one segment). `base_block_nodes` is the smallest block's size. Slurm
// rejects a segment that does not divide the node count; nvlsim uses the largest divisor of `nodes` not above
// it instead.
int segment_nodes(const SegmentOptions& options, int gpus, int nodes, int base_block_nodes);

class SubBlockPolicy final : public PlacementPolicy {
 public:
  SubBlockPolicy(std::string name, BlockLayout layout, SegmentOptions options);

  const std::string& name() const override { return name_; }
  // Fewer GPUs than a tray has: the block best fit for one node over trays with enough free GPUs, then
  // the tray with the fewest free GPUs that suffice (lowest index on ties), lowest GPU ids. Otherwise
  // ceil(gpus / 4) idle trays in segments placed one after another, each by choose_blocks; the highest
  // tray gives only the GPUs left over and its other GPUs stay free. O(trays + segments x blocks). Share
  // requests: place_shares, O(trays x GPUs per tray + blocks).
  std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const override;
  // With one base block per domain: enough whole segments in the domains' idle trays, O(domains); for
  // shares, a possible size.
  bool may_fit(const ClusterState& state, const JobRequest& request) const override;
  // A block with A idle trays offers floor(A / s) x s of them to segments of s nodes (s = the `segment`
  // parameter; 1 under the rule table, whose segments vary by job): the trays that repairing the down
  // ones would add to that beyond themselves, plus the free GPUs on trays with a down GPU.
  int failure_stranded_gpus(const ClusterState& state, std::span<const int> down_trays) const override;

 private:
  std::optional<Allocation> place_on_one_tray(const ClusterState& state, int gpus) const;
  // A share request: `request.gpus` trays that can serve (schedulers/shard_select.hpp), one segment by the
  // block best fit (node by node beyond a base block), in each block the trays with the fewest free GPUs;
  // on each, the first GPU with enough free shares.
  std::optional<Allocation> place_shares(const ClusterState& state, const JobRequest& request) const;
  // Idle trays of each base block: the state's per-domain counts when blocks are domains.
  std::vector<int> idle_trays(const ClusterState& state) const;
  // The options for this request: a job class's segment (request.segment_nodes) replaces the built-in
  // table, never a segment or table the spec gives, since those are what a comparison varies.
  SegmentOptions options_for(const JobRequest& request) const;
  // Nodes per segment for this job on this machine (segment_nodes, with the built-in table's fallback).
  int segment_size(const JobRequest& request, int nodes) const;
  // Idle trays taken per base block for all segments, or empty when some segment does not fit.
  std::vector<int> place_segments(std::vector<int> offered, int nodes, int segment) const;

  std::string name_;
  BlockLayout layout_;
  SegmentOptions options_;
  int domain_blocks_;  // aligned_block_trays(layout_)
  FailedBlocks failed_blocks_;
  // By segment size s: the trays of all base blocks that whole s-tray segments can cover, idle or not
  // (index 0 unused; 0 past the largest block). segment_size asks it for most requests.
  std::vector<int> segment_room_;
};

// Parameters: segment=S (0 = none; default: the rule table), spread=0|1, consolidate=0|1, and
// segment_rules=G>S/G>S/... (jobs of at least G GPUs get S-node segments; default 128>16/32>4/0>1).
extern const PolicyType kSubBlockPolicy;

}  // namespace nvlsim
