#pragma once
// Slurm topology/block as nvlsim sees it: base blocks of trays, grouped by position into aligned
// higher-level blocks of 2^k base blocks (the levels BlockSizes names). Which blocks a job gets is
// schedulers/block_eval's business.

#include <vector>

#include "schedulers/policy_spec.hpp"

namespace nvlsim {

struct BlockLayout {
  std::vector<std::vector<int>> blocks;  // trays of each base block, ascending; empty for a placeholder
  std::vector<int> level_sizes;          // nodes per block at each configured level, base x 2^k ascending
};

// One base block per NVLink domain (18 trays on NVL72) with levels base x 2^k up to the domain count,
// or the topology's blocks and BlockSizes when the context has a topology (without BlockSizes, Slurm's
// default: the first block's size x 1, 2, 4, 8, 16). Throws InputError when a topology tray is outside the
// machine or in two blocks.
BlockLayout make_block_layout(const PolicyContext& context);

}  // namespace nvlsim
