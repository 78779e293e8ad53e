#pragma once
// Slurm 24.11's node choice under topology/block (plugins/topology/block/eval_nodes_block.c), with the
// retry around it that drops nodes one by one when a pass fails (topology/common/common_topo.c,
// common_topo_choose_nodes). `block` and `sub-block` place through it; it sees node offers, not the state.
// docs/policies.md, "block" and "sub-block", says the rules in words; tests/slurm_oracle checks them
// against the real Slurm 24.11.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "schedulers/block_layout.hpp"
#include "schedulers/cons_tres_select.hpp"
#include "schedulers/job_request.hpp"

namespace nvlsim {

// Segments a job's nodes are placed in (--segment, Slurm 24.11), and the two 25.11 options read from
// 25.11's source (`--spread-segments`, `--consolidate-segments`; 24.11's salloc refuses them).
struct Segments {
  int nodes = 0;             // nodes per segment; 0 = none
  bool spread = false;       // no two segments in one base block
  bool consolidate = false;  // every segment inside one block of the level holding the whole job
};

// What choose() gives: the trays in the order Slurm takes them, or none; `unavailable` when Slurm refuses
// the request whatever the state ("Requested topology configuration is not available": a segment larger
// than a base block, or one that does not divide the job's node count).
struct BlockChoice {
  std::optional<std::vector<int>> taken;
  bool unavailable = false;
};

// The NVLink domains a job may use, for BlockEval::choose_by_domain: every one (all), or those with every
// GPU free and the `extra` ones (ascending): under --exclusive=topo the domains without jobs, where these are
// the ones with a GPU down. Without a CPU share in the first case; with any a run allows in the second.
struct OpenDomains {
  bool all = true;
  std::span<const int> extra{};
};

class BlockEval {
 public:
  // The base blocks and levels of `layout` on a machine of `shape`. A tray in no block is never chosen, as
  // Slurm offers it to no block job.
  BlockEval(const BlockLayout& layout, const ClusterShape& shape);

  // The trays for `request` among `offers` (cons_tres::offer under 24.11's rules, ascending by tray; the
  // caller has left out trays in blocks closed by --exclusive=topo) starting from `demand`
  // (cons_tres::initial_demand, or share_demand for a share request). O(passes x offers), where passes is 1
  // unless the first fails (then one more per tray dropped, as Slurm does).
  BlockChoice choose(std::span<const cons_tres::NodeOffer> offers, const JobRequest& request,
                     const cons_tres::Demand& demand, const Segments& segments) const;
  // choose()'s answer read from the state's counts per NVLink domain, where that gives the same answer
  // without an offer from every tray: base blocks that are the domains in order, no shares, no consolidated
  // segments, and a choice that comes down to counts (whole trays when idle trays have all their cores
  // free; a GPU count when the block chosen has its GPUs, since then the first pass succeeds). `open` says
  // which domains the job may use. nullopt: choose() must decide. O(domains + trays of the blocks taken);
  // O(domains / 64 + extra domains) for a job of one base block when only some domains are open.
  std::optional<BlockChoice> choose_by_domain(const ClusterState& state, const JobRequest& request,
                                              const Segments& segments, const OpenDomains& open) const;

  int base_nodes() const { return base_; }
  // Whether base block b is NVLink domain b, for every b.
  bool by_domain() const { return by_domain_; }
  // Base blocks per block of the level a job of `nodes` nodes is placed at (all of them when no level holds
  // it).
  int blocks_per_group(int nodes) const {
    const int level = levels_for(nodes).block;
    return level < 0 ? blocks() : 1 << level;
  }
  int blocks() const { return static_cast<int>(blocks_.size()); }
  // The base block of a tray, or -1.
  int block_of(int tray) const { return block_of_[tray]; }
  const std::vector<int>& trays_of(int block) const { return blocks_[block]; }

 private:
  class Pass;
  // The block level for `nodes`: the lowest configured one whose blocks hold them (-1: none, the whole
  // machine is the block), and the level below it that bounds how many of its sub-blocks a job spans.
  struct Levels {
    int block = -1;
    int sub = 0;
  };
  Levels levels_for(int nodes) const;
  std::vector<std::vector<int>> blocks_;  // trays of each base block, ascending
  std::vector<int> block_of_;             // per tray
  std::vector<char> levels_;              // levels_[k]: blocks of 2^k base blocks are configured
  int base_ = 1;                          // nodes of a base block, as Slurm counts levels by them
  bool by_domain_ = false;                // base block b is NVLink domain b, for every b
};

// Slurm's reason for refusing a GPU count (`--gpus=G` without -N) larger than the largest base block's
// GPUs, which topology/block keeps in one base block; "" for any other request.
std::string gpu_count_refusal(const BlockEval& eval, const JobRequest& request, int gpus_per_tray);

// Whether some base block has `gpus` free GPUs: what a GPU count needs, as Slurm keeps it in one base block.
// O(blocks) when the blocks are the NVLink domains, else O(trays).
bool some_block_has_free(const ClusterState& state, const BlockEval& eval, int gpus);

}  // namespace nvlsim
