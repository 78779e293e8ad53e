#include "schedulers/block_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>

#include "models/input_error.hpp"

namespace nvlsim {

int aligned_block_trays(const BlockLayout& layout) {
  const int n = layout.blocks.empty() ? 0 : static_cast<int>(layout.blocks.front().size());
  for (std::size_t b = 0; b < layout.blocks.size(); ++b) {
    const std::vector<int>& trays = layout.blocks[b];
    if (static_cast<int>(trays.size()) != n) return 0;
    for (int i = 0; i < n; ++i)
      if (trays[i] != static_cast<int>(b) * n + i) return 0;
  }
  return n;
}
int group_width(const BlockLayout& layout, int nodes) {
  const auto level = std::find_if(layout.level_sizes.begin(), layout.level_sizes.end(),
                                  [&](int size) { return size >= nodes; });
  return level == layout.level_sizes.end() ? static_cast<int>(layout.blocks.size())
                                           : *level / layout.level_sizes.front();
}

namespace {

// Slurm's default when BlockSizes is unset: base x 2^k while 2^k base blocks exist.
std::vector<int> doubling_sizes(int base, int blocks) {
  std::vector<int> sizes;
  for (int count = 1; count <= std::max(blocks, 1); count *= 2) sizes.push_back(base * count);
  return sizes;
}

BlockLayout layout_from_topology(const SlurmTopology& topology, const ClusterShape& shape) {
  BlockLayout layout;
  std::vector<std::uint8_t> seen(shape.trays(), 0);
  std::size_t largest = 0;
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
    largest = std::max(largest, trays.size());
    layout.blocks.push_back(std::move(trays));
  }
  const int blocks = static_cast<int>(layout.blocks.size());
  layout.level_sizes =
      topology.block_sizes.empty() ? doubling_sizes(static_cast<int>(largest), blocks) : topology.block_sizes;
  return layout;
}

int offered_in(std::span<const int> offered, int first, int end) {
  int sum = 0;
  for (int b = first; b < end; ++b) sum += offered[b];
  return sum;
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

std::vector<BlockRange> fitting_groups(const BlockLayout& layout, std::span<const int> offered, int nodes) {
  const int blocks = static_cast<int>(layout.blocks.size());
  const int width = group_width(layout, nodes);
  struct Candidate {
    BlockRange range;
    int offered;
  };
  std::vector<Candidate> candidates;
  for (int first = 0; first < blocks; first += width) {
    const int end = std::min(blocks, first + width);
    const int sum = offered_in(offered, first, end);
    if (sum >= nodes) candidates.push_back({{first, end}, sum});
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.offered < b.offered || (a.offered == b.offered && a.range.first > b.range.first);
  });
  std::vector<BlockRange> ranges;
  ranges.reserve(candidates.size());
  for (const Candidate& candidate : candidates) ranges.push_back(candidate.range);
  return ranges;
}

std::vector<BlockTake> fill_group(BlockRange group, std::span<const int> offered,
                                  std::span<std::uint8_t> used, int nodes) {
  const int width = group.end - group.first;
  if (width == 1 && nodes > 0) {
    // One base block holds it all (the group's offer suffices): the common case of small jobs, without
    // the distance bookkeeping below.
    used[group.first] = 1;
    return {{group.first, nodes}};
  }
  std::vector<int> left(offered.begin() + group.first, offered.begin() + group.end);
  // Distance of block i of the group to the job: the smallest k such that its aligned 2^k-block
  // contains a used block. Ranges are aligned globally because groups start at multiples of their width.
  std::vector<int> used_before(width + 1, 0);  // used blocks among the group's first i
  const auto distance = [&](int i) {
    for (int span = 1; span < 2 * width; span *= 2) {
      const int first = i / span * span;
      if (used_before[std::min(width, first + span)] > used_before[first])
        return std::countr_zero(unsigned(span));
    }
    return std::numeric_limits<int>::max();
  };
  std::vector<BlockTake> takes;
  while (nodes > 0) {
    for (int i = 0; i < width; ++i) used_before[i + 1] = used_before[i] + (used[group.first + i] != 0);
    int best = -1;
    int best_distance = 0;
    for (int i = 0; i < width; ++i) {
      if (left[i] == 0) continue;
      const int d = distance(i);
      if (best >= 0) {
        if (d > best_distance) continue;
        const bool fits = left[i] >= nodes;
        const bool best_fits = left[best] >= nodes;
        const bool better = d < best_distance || (fits && !best_fits) ||
                            (fits && best_fits && left[i] < left[best]) ||
                            (!fits && !best_fits && left[i] > left[best]);
        if (!better) continue;
      }
      best = i;
      best_distance = d;
    }
    const int take = std::min(nodes, left[best]);
    takes.push_back({group.first + best, take});
    left[best] -= take;
    used[group.first + best] = 1;
    nodes -= take;
  }
  std::sort(takes.begin(), takes.end(),
            [](const BlockTake& a, const BlockTake& b) { return a.block < b.block; });
  return takes;
}

std::vector<BlockTake> choose_blocks(const BlockLayout& layout, std::span<const int> offered,
                                     std::span<std::uint8_t> used, int nodes) {
  // The first group of fitting_groups' order, found in one pass without building and sorting them all:
  // placement asks this several times per scheduling pass.
  const int blocks = static_cast<int>(layout.blocks.size());
  const int width = group_width(layout, nodes);
  BlockRange best;
  int best_offered = -1;
  // `<=`: on equal offers the later group wins, as in fitting_groups.
  const auto consider = [&](int first, int end, int sum) {
    if (sum >= nodes && (best_offered < 0 || sum <= best_offered)) {
      best = {first, end};
      best_offered = sum;
    }
  };
  if (width == 1) {
    // Groups of one base block, the common case (jobs of at most a block): a plain scan of the offers.
    for (int b = 0; b < blocks; ++b) consider(b, b + 1, offered[b]);
  } else {
    for (int first = 0; first < blocks; first += width) {
      const int end = std::min(blocks, first + width);
      consider(first, end, offered_in(offered, first, end));
    }
  }
  if (best_offered < 0) return {};
  return fill_group(best, offered, used, nodes);
}

}  // namespace nvlsim
