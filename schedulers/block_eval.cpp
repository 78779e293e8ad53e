#include "schedulers/block_eval.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <functional>
#include <utility>

namespace nvlsim {
namespace {

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

// True when base blocks a and b (a may be -1: none yet) lie in one aligned group of 2^level of them.
bool same_group(int a, int b, int level) {
  return (a >> level) == (b >> level);
}

// Slurm's rem_max_cpus for segments is the unset max_cpus over the segment count (an inverted test in
// eval_nodes_block.c), so no node's CPUs are ever cut: a bound no node reaches.
constexpr int kUnboundedCpus = INT_MAX / 2;

}  // namespace

BlockEval::BlockEval(const BlockLayout& layout, const ClusterShape& shape)
    : blocks_(layout.blocks), block_of_(shape.trays(), -1) {
  by_domain_ = static_cast<int>(blocks_.size()) == shape.domains;
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const int first = shape.first_tray_of_domain(static_cast<int>(b));
    by_domain_ = by_domain_ && static_cast<int>(blocks_[b].size()) == shape.trays_per_domain &&
                 blocks_[b].front() == first && blocks_[b].back() == first + shape.trays_per_domain - 1;
    for (int tray : blocks_[b])
      if (tray >= 0 && tray < shape.trays()) block_of_[tray] = static_cast<int>(b);
  }
  base_ = layout.level_sizes.empty() ? 1 : std::max(1, layout.level_sizes.front());
  for (int size : layout.level_sizes) {
    if (size % base_ != 0) continue;
    const int ratio = size / base_;
    if ((ratio & (ratio - 1)) != 0) continue;  // a size Slurm would refuse; layouts never hold one
    const int k = std::countr_zero(static_cast<unsigned>(ratio));
    if (static_cast<int>(levels_.size()) <= k) levels_.resize(k + 1, 0);
    levels_[k] = 1;
  }
  if (levels_.empty()) levels_.assign(1, 1);
}

// One call of choose(): the offers, and what Slurm keeps per node from one pass of eval_nodes_block to the
// next (avail_res_t's CPUs and resource count, which the nodes a failed pass took keep changed).
class BlockEval::Pass {
 public:
  enum class Result { success, failure, unavailable };

  Pass(const BlockEval& eval, std::span<const cons_tres::NodeOffer> offers, const JobRequest& request,
       const cons_tres::Demand& demand, const Segments& segments)
      : eval_(eval), offers_(offers), demand_(demand), segments_(segments) {
    k_ = request.shards > 0 ? 0 : request.cpus_per_gpu;
    per_node_gpus_ = request.shape == RequestShape::nodes && request.shards == 0;
    avail_cpus_.resize(offers.size());
    res_cnt_.resize(offers.size());
    block_.resize(offers.size());
    for (std::size_t n = 0; n < offers.size(); ++n) {
      avail_cpus_[n] = offers[n].free_cpus;
      res_cnt_[n] = offers[n].free_cpus + offers[n].free_gpus;
      block_[n] = eval.block_of(offers[n].tray);
    }
    avail_cpu_per_node_.assign(offers.size(), 0);
  }

  int nodes() const { return static_cast<int>(offers_.size()); }
  int res_cnt(int n) const { return res_cnt_[n]; }

  // eval_nodes_block over the nodes `map` holds; on success `map` holds the nodes taken and `taken` lists
  // them (indices into the offers) in the order taken.
  Result run(std::vector<char>& map, std::vector<int>& taken);

 private:
  // eval_nodes_select_cores under 24.11: the CPUs the node counts for this job, from its CPUs as they
  // stand (K per GPU it can give when the job asks a CPU share).
  int select_cores(int n) const {
    if (k_ == 0) return avail_cpus_[n];
    const int cap = per_node_gpus_ ? offers_[n].free_gpus : std::max(1, demand_.gpus_per_job);
    return k_ * std::min({offers_[n].free_gpus, avail_cpus_[n] / k_, cap});
  }
  // The GPUs a node with `cpus` counted CPUs gives toward the job's count.
  int countable(int n, int cpus) const {
    return k_ > 0 ? std::min(offers_[n].free_gpus, cpus / k_) : offers_[n].free_gpus;
  }
  Result one_segment(std::vector<char>& map, std::vector<int>& taken);
  // Every segment of the job, on the nodes of `map`.
  Result segments(std::vector<char>& map, std::vector<int>& taken, int rem_nodes, int segment_count);

  const BlockEval& eval_;
  std::span<const cons_tres::NodeOffer> offers_;
  const cons_tres::Demand& demand_;
  const Segments& segments_;
  int k_ = 0;
  bool per_node_gpus_ = false;
  std::vector<int> avail_cpus_;
  std::vector<int> res_cnt_;
  std::vector<int> block_;
  std::vector<int> avail_cpu_per_node_;
  // Set by run() for one_segment.
  int rem_nodes_ = 0, min_rem_nodes_ = 0, max_nodes_ = 0, rem_cpus_ = 0, rem_max_cpus_ = 0;
  int gpus_counted_ = 0;
  int block_level_ = 0, ll_level_ = 0, max_ll_ = 0;
  // --consolidate-segments: base blocks per consolidating block (0: off), the nodes it must have for the
  // first segment to choose a base block in it, and the one chosen (-1: none yet).
  int as_bblocks_ = 0, as_nodes_ = 0, as_block_ = -1;
};

BlockEval::Pass::Result BlockEval::Pass::run(std::vector<char>& map, std::vector<int>& taken) {
  taken.clear();
  const int base = eval_.base_;
  const int min_nodes = demand_.nodes;
  const int s = segments_.nodes;
  int rem_nodes = min_nodes;
  // A segment must fit in a base block and divide the job's nodes (24.11 refuses the job otherwise).
  if (s > base || (s > 0 && rem_nodes % s != 0)) return Result::unavailable;
  int segment_count = 1;
  if (s > 0) {
    segment_count = rem_nodes / s;
    rem_nodes = s;
  }
  const Levels levels = eval_.levels_for(rem_nodes);
  block_level_ = levels.block;
  ll_level_ = levels.sub;
  if (!segments_.consolidate || s == 0) return segments(map, taken, rem_nodes, segment_count);
  // Consolidated (25.11): all segments in one block of the level holding the job (holding one base block
  // per segment when they are also spread); a block whose segments do not all fit is left out and the
  // next tried.
  const int as_nodes = segments_.spread ? ceil_div(s, base) * base * segment_count : min_nodes;
  const int as_level = eval_.levels_for(as_nodes).block;
  as_bblocks_ = as_level < 0 ? static_cast<int>(eval_.blocks_.size()) : (1 << as_level);
  as_nodes_ = as_nodes;
  for (;;) {
    as_block_ = -1;
    std::vector<char> attempt(map);
    const Result result = segments(attempt, taken, rem_nodes, segment_count);
    if (result == Result::success) {
      map = std::move(attempt);
      return result;
    }
    if (as_block_ < 0) return result;
    for (int n = 0; n < nodes(); ++n)
      if (block_[n] >= 0 && block_[n] / as_bblocks_ == as_block_) map[n] = 0;
  }
}

BlockEval::Levels BlockEval::levels_for(int nodes) const {
  int level = 0;
  while ((1 << level) < ceil_div(nodes, base_)) ++level;
  const int configured = static_cast<int>(levels_.size());
  Levels out;
  for (int k = std::min(level - 1, configured - 1); k >= 0 && level > 0; --k)
    if (levels_[k]) {
      out.sub = k;
      break;
    }
  for (int k = level; k < configured; ++k)
    if (levels_[k]) {
      out.block = k;
      break;
    }
  return out;
}

BlockEval::Pass::Result BlockEval::Pass::segments(std::vector<char>& map, std::vector<int>& taken,
                                                  int rem_nodes, int segment_count) {
  taken.clear();
  const int base = eval_.base_;
  const int min_nodes = demand_.nodes;
  const int s = segments_.nodes;
  std::vector<char> original(map);
  std::vector<char> allocated(map.size(), 0);
  gpus_counted_ = 0;
  for (int left = segment_count;;) {
    rem_nodes_ = rem_nodes;
    if (s > 0) {
      min_rem_nodes_ = min_nodes / segment_count;
      max_nodes_ = demand_.max_nodes / segment_count;
      rem_cpus_ = demand_.cpus / segment_count;
      rem_max_cpus_ = kUnboundedCpus / segment_count;
    } else {
      min_rem_nodes_ = min_nodes;
      max_nodes_ = demand_.max_nodes;
      rem_cpus_ = demand_.cpus;
      rem_max_cpus_ = demand_.max_cpus;
    }
    max_ll_ = ceil_div(rem_nodes, (1 << ll_level_) * base);
    const std::size_t before = taken.size();
    const Result result = one_segment(map, taken);
    if (result != Result::success) return result;
    if (s == 0 || --left == 0) break;
    if (as_block_ >= 0 && before == 0) {  // the first segment chose the consolidating block
      for (int n = 0; n < nodes(); ++n)
        if (block_[n] < 0 || block_[n] / as_bblocks_ != as_block_) original[n] = 0;
    }
    for (std::size_t t = before; t < taken.size(); ++t) allocated[taken[t]] = 1;
    // The next segment chooses among the nodes no earlier one took (--spread-segments: nor in their
    // base blocks).
    for (int n = 0; n < nodes(); ++n) map[n] = original[n] && !allocated[n];
    if (segments_.spread) {
      std::vector<char> used(eval_.blocks_.size(), 0);
      for (int t : taken) used[block_[t]] = 1;
      for (int n = 0; n < nodes(); ++n)
        if (block_[n] >= 0 && used[block_[n]]) map[n] = 0;
    }
  }
  std::fill(map.begin(), map.end(), 0);
  for (int t : taken) map[t] = 1;
  return Result::success;
}

BlockEval::Pass::Result BlockEval::Pass::one_segment(std::vector<char>& map, std::vector<int>& taken) {
  const int bblocks = static_cast<int>(eval_.blocks_.size());
  const int gres_per_job = demand_.gpus_per_job;
  int in_map = 0;
  for (int n = 0; n < nodes(); ++n) in_map += map[n] != 0;
  if (in_map == 0) return Result::failure;

  // Blocks of the level: aligned groups of base blocks (the whole machine when no level holds the job).
  const int per_block = block_level_ < 0 ? bblocks : (1 << block_level_);
  const int block_count = block_level_ < 0 ? 1 : ceil_div(bblocks, per_block);
  const int per_ll = 1 << ll_level_;
  const bool track_ll = per_block != per_ll * max_ll_;
  const int ll_count = ceil_div(bblocks, per_ll);
  const auto block_of_bblock = [&](int b) { return b / per_block; };
  const auto as_nodes_in = [&](int as_block) {
    int count = 0;
    for (int n = 0; n < nodes(); ++n)
      count += map[n] && block_[n] >= 0 && block_[n] / as_bblocks_ == as_block;
    return count;
  };

  // The block: the one holding the lowest weight, then the fewest nodes, the later on ties; only blocks
  // with enough nodes (of their max_ll fullest sub-blocks when those are tracked) and CPUs count.
  std::vector<int> block_nodes(block_count, 0), block_cpus(block_count, 0), ll_nodes(ll_count, 0);
  std::vector<int> lowest(block_count, INT_MAX);
  for (int n = 0; n < nodes(); ++n) {
    if (!map[n] || block_[n] < 0) continue;
    const int j = block_of_bblock(block_[n]);
    ++block_nodes[j];
    block_cpus[j] += avail_cpus_[n];
    lowest[j] = std::min(lowest[j], offers_[n].weight);
    ++ll_nodes[block_[n] / per_ll];
  }
  int chosen = -1;
  for (int j = 0; j < block_count; ++j) {
    int avail = block_nodes[j];
    if (track_ll) {
      const int per = per_block / per_ll;
      const int offset = j * per;
      const int count = std::min(per, ll_count - offset);
      std::vector<int> fullest(ll_nodes.begin() + offset, ll_nodes.begin() + offset + count);
      std::sort(fullest.begin(), fullest.end(), std::greater<>());
      avail = 0;
      for (int i = 0; i < std::min(max_ll_, count); ++i) avail += fullest[i];
    }
    if (avail < rem_nodes_ || rem_cpus_ > block_cpus[j] || block_nodes[j] == 0) continue;
    if (as_bblocks_ > 0 && taken.empty() && as_nodes_in(j * per_block / as_bblocks_) < as_nodes_) continue;
    if (chosen < 0 || lowest[j] < lowest[chosen] ||
        (lowest[j] == lowest[chosen] && block_nodes[j] <= block_nodes[chosen]))
      chosen = j;
  }
  if (as_bblocks_ > 0 && taken.empty() && chosen >= 0) as_block_ = chosen * per_block / as_bblocks_;
  std::vector<char> in_block(nodes(), 0);
  for (int n = 0; n < nodes(); ++n)
    in_block[n] = map[n] && block_[n] >= 0 && block_of_bblock(block_[n]) == chosen;
  std::fill(map.begin(), map.end(), 0);
  if (chosen < 0) return Result::failure;

  // The best nodes: whole weight groups in the block, lowest first, until they hold the job; all groups but
  // the last are taken outright (req2).
  std::vector<int> order;
  for (int n = 0; n < nodes(); ++n)
    if (in_block[n]) order.push_back(n);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return offers_[a].weight < offers_[b].weight; });
  std::vector<char> best(nodes(), 0), outright(nodes(), 0);
  int best_nodes = 0, best_cpus = 0, best_gpus = 0;
  bool sufficient = false;
  for (std::size_t i = 0; i < order.size();) {
    if (best_nodes > 0)
      for (std::size_t e = 0; e < i; ++e) outright[order[e]] = best[order[e]];
    const int weight = offers_[order[i]].weight;
    for (; i < order.size() && offers_[order[i]].weight == weight; ++i) {
      const int n = order[i];
      const int cpus = select_cores(n);
      if (cpus == 0) continue;
      best[n] = 1;
      avail_cpu_per_node_[n] = cpus;
      best_cpus += cpus;
      ++best_nodes;
      if (gres_per_job > 0) best_gpus += countable(n, cpus);
    }
    const bool enough = best_nodes >= rem_nodes_ && best_cpus >= rem_cpus_ &&
                        (gres_per_job == 0 || best_gpus >= gres_per_job);
    sufficient = sufficient || enough;
    if (enough) break;
  }
  if (!sufficient) return Result::failure;

  const auto done = [&] {
    return rem_nodes_ <= 0 && rem_cpus_ <= 0 && (gres_per_job == 0 || gpus_counted_ >= gres_per_job);
  };
  // eval_nodes_cpus_to_use and the GPU count: the node's CPUs, cut to what the job may still take, and
  // what Slurm keeps of them for a later pass.
  const auto take = [&](int n) {
    int cpus = avail_cpu_per_node_[n];
    const int room = rem_max_cpus_ - std::max(min_rem_nodes_ - 1, 0);
    if (cpus > room) {
      cpus = std::max(room, 1);
      if (k_ > 0) cpus = std::max(cpus, avail_cpu_per_node_[n]);  // gres_min_cpus: K per GPU it gives
      avail_cpus_[n] = cpus;
    }
    res_cnt_[n] = avail_cpus_[n] + offers_[n].free_gpus;
    if (gres_per_job > 0) {
      avail_cpus_[n] = cpus;
      gpus_counted_ += countable(n, cpus);
    }
    --rem_nodes_;
    --min_rem_nodes_;
    --max_nodes_;
    rem_cpus_ -= cpus;
    rem_max_cpus_ -= cpus;
    map[n] = 1;
    taken.push_back(n);
  };

  std::vector<char> required(bblocks, 0);
  bool any_outright = false;
  for (int n = 0; n < nodes(); ++n) any_outright = any_outright || outright[n];
  if (any_outright) {
    for (int n = 0; n < nodes() && max_nodes_ > 0; ++n)
      if (outright[n]) take(n);
    if (done()) return Result::success;
    if (max_nodes_ <= 0) return Result::failure;
    int last_ll = -1;
    for (int b = 0; b < bblocks; ++b) {
      if (block_of_bblock(b) != chosen) continue;
      if (required[b]) {
        last_ll = b;
        continue;
      }
      bool holds = false;
      for (int n = 0; n < nodes() && !holds; ++n) holds = outright[n] && block_[n] == b;
      if (!holds) continue;
      required[b] = 1;
      if (!same_group(last_ll, b, ll_level_)) {
        --max_ll_;
        last_ll = b;
      }
    }
    if (max_ll_ < 0) return Result::failure;
    // The rest of the base blocks already required, in index order.
    for (int b = 0; b < bblocks; ++b) {
      if (!required[b]) continue;
      for (int n = 0; n < nodes(); ++n) {
        if (block_[n] != b || !best[n] || map[n] || avail_cpu_per_node_[n] == 0) continue;
        take(n);
        if (done()) return Result::success;
      }
    }
  }

  // Then base blocks one at a time: the smallest that holds the rest, else the largest, the later on ties
  // (with sub-blocks tracked, first the one in a sub-block already used, then the sub-block that fits
  // tightest, else the fullest).
  std::vector<int> on_bblock(bblocks, 0);
  std::vector<int> on_ll(ll_count, 0);
  for (int n = 0; n < nodes(); ++n)
    if (best[n] && block_[n] >= 0 && !required[block_[n]]) ++on_bblock[block_[n]];
  for (int b = 0; b < bblocks; ++b)
    if (block_of_bblock(b) == chosen && !required[b]) on_ll[b / per_ll] += on_bblock[b];
  const auto in_used_ll = [&](int b) {
    const int first = b & ~(per_ll - 1);
    for (int j = first; j < bblocks && j < first + per_ll; ++j)
      if (required[j]) return true;
    return false;
  };
  for (int previous = rem_nodes_ + 1; previous != rem_nodes_;) {
    previous = rem_nodes_;
    int pick = -1;
    bool pick_fits = false, pick_same = true;
    for (int b = 0; b < bblocks; ++b) {
      if (block_of_bblock(b) != chosen || required[b]) continue;
      const bool fits = on_bblock[b] >= rem_nodes_;
      if (track_ll && !same_group(pick, b, ll_level_)) {
        const bool same = in_used_ll(b);
        if (pick < 0 || (same && !pick_same)) {
          pick = b;
          pick_fits = fits;
          pick_same = same;
          continue;
        }
        if (!same && pick_same) continue;
        const int mine = on_ll[b / per_ll];
        const int theirs = on_ll[pick / per_ll];
        const bool mine_fits = mine >= rem_nodes_;
        const bool theirs_fits = theirs >= rem_nodes_;
        if (mine_fits != theirs_fits) {
          if (mine_fits) {
            pick = b;
            pick_fits = fits;
            pick_same = same;
          }
          continue;
        }
        if (mine != theirs) {
          if (mine_fits ? mine < theirs : mine > theirs) {
            pick = b;
            pick_fits = fits;
            pick_same = same;
          }
          continue;
        }
      }
      if (pick < 0 || (fits && !pick_fits) || (!fits && !pick_fits && on_bblock[b] >= on_bblock[pick]) ||
          (fits && on_bblock[b] <= on_bblock[pick])) {
        pick = b;
        pick_fits = fits;
      }
    }
    if (pick < 0) break;
    if (max_ll_ <= 0 && !pick_same) break;
    required[pick] = 1;
    for (int n = 0; n < nodes() && max_nodes_ > 0; ++n) {
      if (block_[n] != pick || !best[n] || map[n] || avail_cpu_per_node_[n] == 0) continue;
      take(n);
      if (done()) return Result::success;
    }
    if (!pick_same) --max_ll_;
  }
  if (min_rem_nodes_ <= 0 && rem_cpus_ <= 0 && (gres_per_job == 0 || gpus_counted_ >= gres_per_job))
    return Result::success;
  return Result::failure;
}

std::string gpu_count_refusal(const BlockEval& eval, const JobRequest& request, int gpus_per_tray) {
  if (request.shape != RequestShape::gpus || request.shards > 0) return {};
  std::size_t largest = 0;
  for (int b = 0; b < eval.blocks(); ++b) largest = std::max(largest, eval.trays_of(b).size());
  const int most = static_cast<int>(largest) * gpus_per_tray;
  if (request.gpus <= most) return {};
  return fmt::format(
      "Requested node configuration is not available (--gpus={} stays in one base block, of "
      "at most {} GPUs; whole trays, -N, may span blocks)",
      request.gpus, most);
}

bool some_block_has_free(const ClusterState& state, const BlockEval& eval, int gpus) {
  const ClusterShape& shape = state.shape();
  for (int b = 0; b < eval.blocks(); ++b) {
    const std::vector<int>& trays = eval.trays_of(b);
    const bool domain = static_cast<int>(trays.size()) == shape.trays_per_domain && !trays.empty() &&
                        trays.front() == shape.first_tray_of_domain(shape.domain_of_tray(trays.front())) &&
                        trays.back() == trays.front() + shape.trays_per_domain - 1;
    int free = 0;
    if (domain) {
      free = state.free_gpus_in_domain(shape.domain_of_tray(trays.front()));
    } else {
      for (int tray : trays) free += state.free_gpus_in_tray(tray);
    }
    if (free >= gpus) return true;
  }
  return false;
}

BlockChoice BlockEval::choose(std::span<const cons_tres::NodeOffer> offers, const JobRequest& request,
                              const cons_tres::Demand& demand, const Segments& segments) const {
  Pass pass(*this, offers, request, demand, segments);
  // Every offered node, those in no block too: Slurm counts them in the passes and drops them like others.
  std::vector<char> map(offers.size(), 1);
  int in_map = pass.nodes();
  std::vector<char> original = map;
  std::vector<int> taken;  // node indices, in the order taken
  const auto result = [&](Pass::Result r) -> BlockChoice {
    if (r != Pass::Result::success) return {std::nullopt, r == Pass::Result::unavailable};
    for (int& n : taken) n = offers[n].tray;
    return {std::move(taken), false};
  };
  Pass::Result r = pass.run(map, taken);
  // A refusal of the request itself repeats on every pass.
  if (r != Pass::Result::failure) return result(r);
  map = original;
  const int min_nodes = demand.nodes;
  if (in_map <= min_nodes) return result(pass.run(map, taken));
  // Passes with the nodes of fewest resources (free CPUs and GPUs) dropped one at a time, the lowest index
  // first, never those at the most.
  int most = 0;
  for (int n = 0; n < pass.nodes(); ++n) most = std::max(most, pass.res_cnt(n));
  for (int count = 1; count < most; ++count) {
    bool unchanged = true;
    map = original;
    for (int n = 0; n < pass.nodes(); ++n) {
      if (!map[n] || pass.res_cnt(n) <= 0 || pass.res_cnt(n) > count) continue;
      // Counts change with each pass, so look again at this count before moving on.
      if (unchanged) --count;
      unchanged = false;
      map[n] = original[n] = 0;
      if (--in_map <= min_nodes) break;
    }
    if (unchanged && count != 1) continue;
    r = pass.run(map, taken);
    if (r == Pass::Result::success) return result(r);
    if (in_map <= min_nodes) break;
  }
  return result(Pass::Result::failure);
}

}  // namespace nvlsim
