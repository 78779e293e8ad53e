#pragma once
// Slurm topology/block as nvlsim sees it: base blocks of trays, grouped by position into aligned
// higher-level blocks of 2^k base blocks, and the best-fit choice of blocks for a request of nodes
// (Slurm's eval_nodes_block, DOMAIN.md §3). Counting only: which trays are usable is the caller's business.

#include <cstdint>
#include <span>
#include <vector>

#include "schedulers/policy_spec.hpp"

namespace nvlsim {

struct BlockLayout {
  std::vector<std::vector<int>> blocks;  // trays of each base block, ascending; empty for a placeholder
  std::vector<int> level_sizes;          // nodes per block at level k = level_sizes[0] * 2^k
};

// n when base block b is exactly trays [b*n, (b+1)*n) for every b (the default layout, n = trays per
// domain), else 0: then a block's counts are the state's per-domain counts.
int aligned_block_trays(const BlockLayout& layout);

// One base block per NVLink domain (18 trays on NVL72) with levels base x 2^k up to the domain count,
// or the topology's blocks and BlockSizes when the context has a topology. Throws InputError when a
// topology tray is outside the machine or in two blocks.
BlockLayout make_block_layout(const PolicyContext& context);

struct BlockRange {
  int first = 0;  // base blocks [first, end)
  int end = 0;
};

struct BlockTake {
  int block = 0;
  int nodes = 0;
};

// Base blocks per group at the smallest level holding `nodes`; the whole machine when no level does.
int group_width(const BlockLayout& layout, int nodes);

// The blocks at the smallest level holding `nodes` (the whole machine when no level does) whose
// offered nodes suffice, best fit first: fewest offered nodes, later index first on ties. Node weights
// are all equal in nvlsim, so Slurm's lowest-weight rule never decides.
std::vector<BlockRange> fitting_groups(const BlockLayout& layout, std::span<const int> offered, int nodes);

// Spreads `nodes` over base blocks of `group` (whose offered nodes must suffice): repeatedly the base
// block closest to one this job already uses (`used`, nonzero per block; closeness = the smallest
// aligned level block they share), then the one with the fewest offered nodes that holds the rest,
// else the one with the most; lowest index on ties. Marks the chosen blocks in `used`.
std::vector<BlockTake> fill_group(BlockRange group, std::span<const int> offered,
                                  std::span<std::uint8_t> used, int nodes);

// The best fitting group filled, or empty when no group fits.
std::vector<BlockTake> choose_blocks(const BlockLayout& layout, std::span<const int> offered,
                                     std::span<std::uint8_t> used, int nodes);

}  // namespace nvlsim
