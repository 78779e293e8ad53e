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
// -1 for one closed or already taken): the smallest that holds the rest, else the largest, the later on ties.
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

// The trays of domain `d` a GPU count takes (eval_nodes_block inside its one base block): trays by weight,
// the most of the job's GPUs given first, whole weight groups until they hold the job; the groups before
// the last are taken outright, in index order, then the last group's trays in index order.
void take_gpu_count(const ClusterState& state, int d, int gpus, int most, std::vector<int>& taken) {
  const ClusterShape& shape = state.shape();
  const int first = shape.first_tray_of_domain(d);
  const int end = first + shape.trays_per_domain;
  const auto gives = [&](int tray) { return std::min(state.free_gpus_in_tray(tray), gpus); };
  int held = 0, last = most;
  for (; last >= 1; --last) {
    for (int tray = first; tray < end; ++tray)
      if (gives(tray) == last) held += state.free_gpus_in_tray(tray);
    if (held >= gpus) break;
  }
  int counted = 0;
  for (int tray = first; tray < end; ++tray)
    if (gives(tray) > last) {
      taken.push_back(tray);
      counted += state.free_gpus_in_tray(tray);
    }
  for (int tray = first; tray < end && counted < gpus; ++tray)
    if (gives(tray) == last) {
      taken.push_back(tray);
      counted += state.free_gpus_in_tray(tray);
    }
}

}  // namespace

std::optional<BlockChoice> BlockEval::choose_by_domain(const ClusterState& state, const JobRequest& request,
                                                       const Segments& segments,
                                                       const OpenDomains& open) const {
  const ClusterShape& shape = state.shape();
  if (!by_domain_ || request.shards > 0 || segments.consolidate || (segments.nodes > 0 && !open.all))
    return std::nullopt;
  // Counts of trays with free GPUs are Slurm's counts of trays offered, each weighing by its free GPUs alone,
  // when every such tray has a free core and no CPU share can cut what it gives. Trays of domains without
  // jobs have all their cores, which feed any share a run allows (at most a tray's cores over its GPUs).
  if (open.all && (request.cpus_per_gpu != 0 || state.trays_without_free_cores() != 0)) return std::nullopt;
  if (!open.all && (state.idle_trays_with_cpus_used() != 0 ||
                    request.cpus_per_gpu * shape.gpus_per_tray > shape.cpus_per_tray))
    return std::nullopt;
  const int domains = shape.domains;
  const int full = shape.gpus_per_domain();
  const auto is_open = [&](int d) {
    return open.all || state.free_gpus_in_domain(d) == full ||
           std::binary_search(open.extra.begin(), open.extra.end(), d);
  };
  // The domains a choice of one base block looks at, ascending: every open one, or, as the domains with
  // every GPU free all weigh and count the same, only the last of them besides the extra ones (Slurm's ties
  // go to the later block).
  thread_local std::vector<int> candidates;  // kept between calls: the reservation places many times a pass
  candidates.clear();
  if (open.all) {
    for (int d = 0; d < domains; ++d) candidates.push_back(d);
  } else {
    const int last_free = state.last_free_domain_before(domains);
    candidates.assign(open.extra.begin(), open.extra.end());
    if (last_free >= 0)
      candidates.insert(std::lower_bound(candidates.begin(), candidates.end(), last_free), last_free);
  }
  std::vector<int> taken;

  if (request.shape == RequestShape::nodes) {
    // Whole trays: the offered trays are the idle ones, all of one weight, each with all its cores when no
    // idle tray has cores in use; each pass then either succeeds or fails whatever Slurm drops.
    if (state.idle_trays_with_cpus_used() != 0) return std::nullopt;
    const int nodes = request.gpus / shape.gpus_per_tray;
    // Takes the next `count` idle trays of domain d in index order; `resume` keeps where the last take in
    // each domain stopped, as the trays before it are taken or not idle.
    std::vector<int> resume;
    const auto take_idle = [&](int d, int count) {
      if (resume.empty()) resume.assign(domains, 0);
      const int first = shape.first_tray_of_domain(d);
      for (int& i = resume[d]; i < shape.trays_per_domain && count > 0; ++i)
        if (state.tray_idle(first + i)) {
          taken.push_back(first + i);
          --count;
        }
    };
    if (segments.nodes > 0) {
      const int s = segments.nodes;
      if (s > base_ || nodes % s != 0) return BlockChoice{std::nullopt, true};
      // Each segment in the base block with the fewest free nodes that hold it, the later on ties.
      thread_local std::vector<int> left;
      left.resize(domains);
      for (int d = 0; d < domains; ++d) left[d] = state.idle_trays_in_domain(d);
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
    if (per_block == 1) {
      // One base block: the one with the fewest idle trays that hold the job, the later on ties.
      int pick = -1;
      for (int d : candidates) {
        const int idle = state.idle_trays_in_domain(d);
        if (idle >= nodes && (pick < 0 || idle <= state.idle_trays_in_domain(pick))) pick = d;
      }
      if (pick < 0) return BlockChoice{};
      take_idle(pick, nodes);
      return BlockChoice{std::move(taken), false};
    }
    thread_local std::vector<int> left;
    left.resize(domains);
    for (int d = 0; d < domains; ++d) left[d] = is_open(d) ? state.idle_trays_in_domain(d) : -1;
    int chosen = -1, chosen_nodes = 0;
    for (int first = 0; first < domains; first += per_block) {
      int sum = 0;
      for (int d = first; d < std::min(domains, first + per_block); ++d) sum += std::max(left[d], 0);
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
  for (int d : candidates)
    for (int k = std::min(gpus, per_tray); k > most; --k)
      if (state.trays_in_domain_with_at_least(d, k) > 0) most = k;
  if (most == 0) return BlockChoice{};
  int chosen = -1;
  for (int d : candidates) {
    if (state.trays_in_domain_with_at_least(d, most) == 0) continue;
    if (chosen < 0 ||
        state.trays_in_domain_with_at_least(d, 1) <= state.trays_in_domain_with_at_least(chosen, 1))
      chosen = d;
  }
  // Too few GPUs there: the first pass fails and Slurm retries without some trays; choose() follows that.
  if (state.free_gpus_in_domain(chosen) < gpus) return std::nullopt;
  take_gpu_count(state, chosen, gpus, most, taken);
  return BlockChoice{std::move(taken), false};
}

}  // namespace nvlsim
