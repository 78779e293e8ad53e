#include "schedulers/tree_choice.hpp"

#include <algorithm>
#include <limits>

// The per-node walk of TreeChoice (tree_choice.hpp): Slurm's _eval_nodes_topo node by node.

namespace nvlsim {
namespace {

// The indexes of the nodes that `keep`, by weight and then index: a counting sort, since weights span a
// few values and a comparison sort of every node per decision was the policy's largest cost.
template <typename Keep>
std::vector<std::size_t> by_weight(std::span<const cons_tres::NodeOffer> node, Keep&& keep) {
  std::vector<std::size_t> kept;
  int low = std::numeric_limits<int>::max(), high = std::numeric_limits<int>::min();
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (!keep(i)) continue;
    kept.push_back(i);
    low = std::min(low, node[i].weight);
    high = std::max(high, node[i].weight);
  }
  if (kept.empty()) return kept;
  std::vector<std::size_t> start(static_cast<std::size_t>(high - low) + 2, 0);
  for (std::size_t i : kept) ++start[static_cast<std::size_t>(node[i].weight - low) + 1];
  for (std::size_t w = 1; w < start.size(); ++w) start[w] += start[w - 1];
  std::vector<std::size_t> sorted(kept.size());
  for (std::size_t i : kept) sorted[start[static_cast<std::size_t>(node[i].weight - low)]++] = i;
  return sorted;
}

}  // namespace

std::optional<std::vector<int>> TreeChoice::choose_node_by_node(std::span<const cons_tres::NodeOffer> node,
                                                                const JobRequest& request,
                                                                cons_tres::Demand demand) const {
  // Everything below works on indexes into `node`.
  const int switches = static_cast<int>(tree_.trays.size());
  const auto switches_of = [&](std::size_t i) -> const std::vector<int>& { return above_[node[i].tray]; };

  std::vector<int> count(switches, 0);
  std::vector<int> lowest(switches, std::numeric_limits<int>::max());
  std::vector<int> cpus(counts_cpus() ? switches : 0, 0);  // 24.11's switch_cpu_cnt, never lowered
  for (std::size_t i = 0; i < node.size(); ++i) {
    for (int s : switches_of(i)) {
      ++count[s];
      lowest[s] = std::min(lowest[s], node[i].weight);
      if (counts_cpus()) cpus[s] += node[i].free_cpus;
    }
  }
  const int top = top_switch(count, lowest, cpus, demand);
  if (top < 0) return std::nullopt;

  // The best nodes: whole weight groups under the top switch, lowest first, until they suffice. Every
  // group but the last is taken outright.
  std::vector<std::size_t> candidates = by_weight(node, [&](std::size_t i) {
    return std::binary_search(switches_of(i).begin(), switches_of(i).end(), top);
  });
  std::vector<char> best(node.size(), 0);
  std::size_t outright = 0;  // candidates[0, outright) are taken outright
  int best_nodes = 0, best_cpus = 0, best_gpus = 0;
  bool sufficient = false;
  for (std::size_t c = 0; c < candidates.size() && !sufficient;) {
    if (best_nodes > 0) outright = c;
    const int weight = node[candidates[c]].weight;
    for (; c < candidates.size() && node[candidates[c]].weight == weight; ++c) {
      const cons_tres::NodeOffer& n = node[candidates[c]];
      best[candidates[c]] = 1;
      ++best_nodes;
      best_cpus += n.cpus;
      best_gpus += n.gpus;
    }
    sufficient = best_cpus >= demand.cpus && best_nodes >= demand.nodes && best_gpus >= demand.gpus_per_job;
  }
  if (!sufficient) return std::nullopt;

  std::vector<char> chosen(node.size(), 0);
  std::vector<int> picked;  // in the order taken
  const auto take = [&](std::size_t i) {
    cons_tres::take_node(node[i], request, demand, version_);
    chosen[i] = 1;
    picked.push_back(node[i].tray);
  };
  const auto allocate = [&]() -> std::optional<std::vector<int>> { return std::move(picked); };
  std::vector<std::size_t> first(candidates.begin(),
                                 candidates.begin() + static_cast<std::ptrdiff_t>(outright));
  std::sort(first.begin(), first.end());
  for (std::size_t i : first) {
    if (demand.max_nodes <= 0) break;
    take(i);
  }
  // Each switch's best nodes (all under the top switch), ascending; switches that hold a node taken
  // outright are required. Kept as one array sliced per switch.
  std::fill(count.begin(), count.end(), 0);
  std::vector<char> required(switches, 0);
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (!best[i]) continue;
    for (int s : switches_of(i)) {
      ++count[s];
      required[s] = required[s] || chosen[i];
    }
  }
  std::vector<std::size_t> offset(switches + 1, 0);
  for (int s = 0; s < switches; ++s) offset[s + 1] = offset[s] + count[s];
  std::vector<std::size_t> members(offset.back());
  std::vector<std::size_t> fill(offset.begin(), offset.end() - 1);
  for (std::size_t i = 0; i < node.size(); ++i)
    if (best[i])
      for (int s : switches_of(i)) members[fill[s]++] = i;
  const auto members_of = [&](int s) {
    return std::span<const std::size_t>(members.data() + offset[s], members.data() + offset[s + 1]);
  };
  if (!first.empty()) {
    if (demand.satisfied()) return allocate();
    if (demand.max_nodes <= 0) return std::nullopt;
    int taken = 0;  // in this pass: 24.11 takes the running total off each leaf and its ancestors
    for (int s = 0; s < switches; ++s) {
      if (!required[s] || tree_.level[s] != 0) continue;
      for (std::size_t i : members_of(s)) {
        if (chosen[i]) continue;
        take(i);
        ++taken;
        if (demand.satisfied()) return allocate();
      }
      if (counts_cpus()) take_off(count, s, taken);
    }
  }

  // Then leaf switches one at a time: the nearest to the required ones, the tightest in nodes.
  std::vector<std::uint32_t> distance(switches, 0);
  for (int s = 0; s < switches; ++s)
    if (required[s]) add_distance(distance, distance_[s], leaves_);
  const LeafSearch search{leaves_, count, required, distance, cpus};
  for (int previous = demand.nodes + 1; previous != demand.nodes;) {
    previous = demand.nodes;
    const int leaf = next_leaf(search, demand);
    if (leaf < 0) break;
    add_distance(distance, distance_[leaf], leaves_);
    for (std::size_t i : members_of(leaf)) {
      if (demand.max_nodes <= 0) break;
      if (chosen[i]) continue;
      take(i);
      if (demand.satisfied()) return allocate();
    }
    if (counts_cpus()) take_off(count, leaf, count[leaf]);
    count[leaf] = 0;
  }
  if (demand.satisfied()) return allocate();
  return std::nullopt;
}

}  // namespace nvlsim
