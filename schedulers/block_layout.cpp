#include "schedulers/block_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/input_error.hpp"

namespace nvlsim {

namespace {

// The levels of nvlsim's own blocks (and the BlockSizes it writes for them): base x 2^k while 2^k base
// blocks exist.
std::vector<int> doubling_sizes(int base, int blocks) {
  std::vector<int> sizes;
  for (int count = 1; count <= std::max(blocks, 1); count *= 2) sizes.push_back(base * count);
  return sizes;
}

// Slurm's levels when BlockSizes is unset (block_record.c): the first block's size x 2^k for k up to 4.
std::vector<int> default_sizes(int base) {
  std::vector<int> sizes;
  for (int k = 0; k <= 4; ++k) sizes.push_back(base << k);
  return sizes;
}

BlockLayout layout_from_topology(const SlurmTopology& topology, const ClusterShape& shape) {
  BlockLayout layout;
  std::vector<std::uint8_t> seen(shape.trays(), 0);
  for (const SlurmBlock& block : topology.blocks) {
    for (int tray : block.trays) {
      if (tray < 0 || tray >= shape.trays()) {
        throw InputError(fmt::format("topology block {}: node {} is beyond the machine's {} trays",
                                     block.name, tray, shape.trays()));
      }
      if (seen[tray]++)
        throw InputError(fmt::format("topology block {}: node {} is in two blocks", block.name, tray));
    }
    std::vector<int> trays = block.trays;
    std::sort(trays.begin(), trays.end());
    layout.blocks.push_back(std::move(trays));
  }
  // Placeholder blocks (empty BlockName= lines) hold no node to count.
  int first = 1;
  for (const auto& trays : layout.blocks)
    if (!trays.empty()) {
      first = static_cast<int>(trays.size());
      break;
    }
  layout.level_sizes = topology.block_sizes.empty() ? default_sizes(first) : topology.block_sizes;
  return layout;
}

}  // namespace

BlockLayout make_block_layout(const PolicyContext& context) {
  if (context.topology && !context.topology->blocks.empty()) {
    return layout_from_topology(*context.topology, context.shape);
  }
  BlockLayout layout;
  for (int domain = 0; domain < context.shape.domains; ++domain) {
    std::vector<int>& trays = layout.blocks.emplace_back(context.shape.trays_per_domain);
    for (int i = 0; i < context.shape.trays_per_domain; ++i) {
      trays[i] = context.shape.first_tray_of_domain(domain) + i;
    }
  }
  layout.level_sizes = doubling_sizes(context.shape.trays_per_domain, context.shape.domains);
  return layout;
}

}  // namespace nvlsim
