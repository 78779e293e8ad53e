// BlockEval::choose_by_domain: Slurm's topology/block choice (block_eval.cpp) for the requests where it
// comes down to counts per base block, read from the state's counts per NVLink domain. A randomized test
// (tests/unit/test_block_by_domain.cpp) holds it to choose() on fragmented machines with failures.

#include <algorithm>
#include <vector>

#include "schedulers/block_eval.hpp"

namespace nvlsim {
namespace {

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

// The base block _choose_best_bblock takes next for `rest` nodes among `left` (per block of [first, end);
// -1 for one already taken): the smallest that holds the rest, else the largest, the later on ties.
int next_block(const std::vector<int>& left, int first, int end, int rest) {
  int pick = -1;
  bool pick_fits = false;
  for (int b = first; b < end; ++b) {
    if (left[b] < 0) continue;
    const bool fits = left[b] >= rest;
    if (pick < 0 || (fits && !pick_fits) || (!fits && !pick_fits && left[b] >= left[pick]) ||
        (fits && left[b] <= left[pick])) {
      pick = b;
      pick_fits = fits;
    }
  }
  return pick;
}

}  // namespace

std::optional<BlockChoice> BlockEval::choose_by_domain(const ClusterState& state, const JobRequest& request,
                                                        const Segments& segments,
                                                        std::span<const char> open) const {
  // Counts of trays with free GPUs are Slurm's counts of trays offered only when every such tray has a
  // free core.
  if (!by_domain_ || request.cpus_per_gpu != 0 || request.shards > 0 || segments.consolidate ||
      state.trays_without_free_cores() != 0)
    return std::nullopt;
  const ClusterShape& shape = state.shape();
  const int domains = shape.domains;
  const auto is_open = [&](int d) { return open.empty() || open[d] != 0; };
  std::vector<int> taken;
  // Takes the next `count` idle trays of domain d in index order; `resume` keeps where the last take in
  // each domain stopped, as the trays before it are taken or not idle.
  std::vector<int> resume;
  const auto take_idle = [&](int d, int count) {
    if (resume.empty()) resume.assign(domains, 0);
    const int first = shape.first_tray_of_domain(d);
    int& i = resume[d];
    for (; i < shape.trays_per_domain && count > 0; ++i)
      if (state.tray_idle(first + i)) {
        taken.push_back(first + i);
        --count;
      }
  };

  if (request.shape == RequestShape::nodes) {
    // Whole trays: the offered trays are the idle ones, all of one weight, each with all its cores when no
    // idle tray has cores in use; each pass then either succeeds or fails whatever Slurm drops.
    if (state.idle_trays_with_cpus_used() != 0) return std::nullopt;
    const int nodes = request.gpus / shape.gpus_per_tray;
    std::vector<int> left(domains);
    for (int d = 0; d < domains; ++d) left[d] = is_open(d) ? state.idle_trays_in_domain(d) : 0;
    if (segments.nodes > 0) {
      const int s = segments.nodes;
      if (s > base_ || nodes % s != 0) return BlockChoice{std::nullopt, true};
      // Each segment in the base block with the fewest free nodes that hold it, the later on ties.
      for (int placed = 0; placed < nodes; placed += s) {
        int pick = -1;
        for (int d = 0; d < domains; ++d)
          if (left[d] >= s && (pick < 0 || left[d] <= left[pick])) pick = d;
        if (pick < 0) return BlockChoice{};
        take_idle(pick, s);
        left[pick] = segments.spread ? 0 : left[pick] - s;
      }
      return BlockChoice{std::move(taken), false};
    }
    const Levels levels = levels_for(nodes);
    const int per_block = levels.block < 0 ? domains : (1 << levels.block);
    const int max_ll = ceil_div(nodes, (1 << levels.sub) * base_);
    if (per_block != (1 << levels.sub) * max_ll) return std::nullopt;  // sub-blocks tracked: choose() decides
    int chosen = -1, chosen_nodes = 0;
    for (int first = 0; first < domains; first += per_block) {
      int sum = 0;
      for (int d = first; d < std::min(domains, first + per_block); ++d) sum += left[d];
      if (sum >= nodes && (chosen < 0 || sum <= chosen_nodes)) {
        chosen = first;
        chosen_nodes = sum;
      }
    }
    if (chosen < 0) return BlockChoice{};
    const int end = std::min(domains, chosen + per_block);
    for (int rest = nodes; rest > 0;) {
      const int d = next_block(left, chosen, end, rest);
      const int count = std::min(rest, left[d]);
      take_idle(d, count);
      rest -= count;
      left[d] = -1;
    }
    return BlockChoice{std::move(taken), false};
  }

  // A GPU count stays in one base block: the one holding a tray that gives the most of the job's GPUs,
  // then with the fewest trays with a free GPU, the later on ties.
  const int gpus = request.gpus;
  const int per_tray = shape.gpus_per_tray;
  int most = 0;  // the most of the job's GPUs one tray gives
  for (int d = 0; d < domains; ++d)
    for (int k = std::min(gpus, per_tray); k > most; --k)
      if (is_open(d) && state.trays_in_domain_with_at_least(d, k) > 0) most = k;
  if (most == 0) return BlockChoice{};
  int chosen = -1;
  for (int d = 0; d < domains; ++d) {
    if (!is_open(d) || state.trays_in_domain_with_at_least(d, most) == 0) continue;
    if (chosen < 0 || state.trays_in_domain_with_at_least(d, 1) <= state.trays_in_domain_with_at_least(chosen, 1))
      chosen = d;
  }
  // Too few GPUs there: the first pass fails and Slurm retries without some trays; choose() follows that.
  if (state.free_gpus_in_domain(chosen) < gpus) return std::nullopt;
  // Inside: trays by weight (the most GPUs given first), whole weight groups until they hold the job; the
  // groups before the last are taken outright, in index order, then the last group's trays in index order.
  int held = 0, last = most;
  for (; last >= 1; --last) {
    const int first = shape.first_tray_of_domain(chosen);
    for (int tray = first; tray < first + shape.trays_per_domain; ++tray)
      if (std::min(state.free_gpus_in_tray(tray), gpus) == last) held += state.free_gpus_in_tray(tray);
    if (held >= gpus) break;
  }
  int counted = 0;
  if (last < most) {
    const int first = shape.first_tray_of_domain(chosen);
    for (int tray = first; tray < first + shape.trays_per_domain; ++tray)
      if (std::min(state.free_gpus_in_tray(tray), gpus) > last) {
        taken.push_back(tray);
        counted += state.free_gpus_in_tray(tray);
      }
  }
  const int first = shape.first_tray_of_domain(chosen);
  for (int tray = first; tray < first + shape.trays_per_domain && counted < gpus; ++tray) {
    const int free = state.free_gpus_in_tray(tray);
    if (free == 0 || std::min(free, gpus) < last || std::min(free, gpus) > last) continue;
    taken.push_back(tray);
    counted += free;
  }
  return BlockChoice{std::move(taken), false};
}

}  // namespace nvlsim
