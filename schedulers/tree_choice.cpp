#include "schedulers/tree_choice.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "models/input_error.hpp"

namespace nvlsim {
namespace {

constexpr std::uint32_t kUnreachable = std::numeric_limits<std::uint32_t>::max();

// Adds the row's hops to the sums, for the switches `at` only.
void add_distance(std::span<std::uint32_t> sum, const std::vector<std::uint32_t>& row,
                  std::span<const int> at) {
  for (int s : at) sum[s] = sum[s] == kUnreachable || row[s] == kUnreachable ? kUnreachable : sum[s] + row[s];
}

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

// What the offered nodes of one weight give, summed under a switch.
struct Offered {
  int nodes = 0;
  int cpus = 0;
  int gpus = 0;

  Offered& operator+=(const Offered& other) {
    nodes += other.nodes;
    cpus += other.cpus;
    gpus += other.gpus;
    return *this;
  }
};

}  // namespace

TreeChoice::TreeChoice(SwitchTree tree) : tree_(std::move(tree)) {
  const std::size_t switches = tree_.trays.size();
  if (switches > kMaxTreeSwitches)
    throw InputError(
        fmt::format("tree: {} switches, more than the {} it handles (it keeps the hops between "
                    "every two)",
                    switches, kMaxTreeSwitches));
  std::vector<std::vector<int>> under(switches);  // per switch: every tray below it, ascending
  parent_.assign(switches, 0);
  up_.assign(switches, -1);
  single_path_ = true;
  int trays = 0;
  for (int s : tree_.bottom_up) {
    under[s] = tree_.trays[s];
    for (int child : tree_.children[s]) {
      under[s].insert(under[s].end(), under[child].begin(), under[child].end());
      parent_[child] = s;
      single_path_ = single_path_ && up_[child] < 0;
      up_[child] = s;
    }
    std::sort(under[s].begin(), under[s].end());
    under[s].erase(std::unique(under[s].begin(), under[s].end()), under[s].end());
    if (!under[s].empty()) trays = std::max(trays, under[s].back() + 1);
  }
  above_.resize(trays);
  for (std::size_t s = 0; s < switches; ++s)
    for (int tray : under[s]) above_[tray].push_back(static_cast<int>(s));
  home_.assign(trays, -1);
  for (std::size_t s = 0; s < switches; ++s)
    for (int tray : tree_.trays[s]) {
      single_path_ = single_path_ && home_[tray] < 0;
      home_[tray] = static_cast<int>(s);
    }
  for (std::size_t s = 0; s < switches; ++s)
    if (tree_.level[s] == 0) leaves_.push_back(static_cast<int>(s));
  root_.assign(switches, -1);
  for (auto s = tree_.bottom_up.rbegin(); s != tree_.bottom_up.rend(); ++s) {
    root_[*s] = up_[*s] < 0 ? *s : root_[up_[*s]];
    if (up_[*s] < 0) roots_.push_back(*s);
  }
  std::sort(roots_.begin(), roots_.end());
  // Subtree intervals: preorder from each top switch.
  std::vector<int> size(switches, 1);
  for (int s : tree_.bottom_up)
    if (up_[s] >= 0) size[up_[s]] += size[s];
  enter_.assign(switches, 0);
  leave_.assign(switches, 0);
  std::vector<int> stack;
  int clock = 0;
  for (std::size_t top = 0; top < switches; ++top) {
    if (up_[top] >= 0) continue;
    stack.assign(1, static_cast<int>(top));
    while (!stack.empty()) {
      const int s = stack.back();
      stack.pop_back();
      enter_[s] = clock++;
      leave_[s] = enter_[s] + size[s];
      stack.insert(stack.end(), tree_.children[s].rbegin(), tree_.children[s].rend());
    }
  }
  // Hops between switches along parent-child links, shortest paths (Slurm's switches_dist): a breadth-first
  // search from each switch, O(switches x links) rather than Floyd-Warshall's O(switches^3).
  std::vector<std::vector<int>> links(switches);
  for (std::size_t s = 0; s < switches; ++s)
    for (int child : tree_.children[s]) {
      links[s].push_back(child);
      links[static_cast<std::size_t>(child)].push_back(static_cast<int>(s));
    }
  distance_.assign(switches, std::vector<std::uint32_t>(switches, kUnreachable));
  std::vector<int> frontier;
  for (std::size_t from = 0; from < switches; ++from) {
    std::vector<std::uint32_t>& hops = distance_[from];
    hops[from] = 0;
    frontier.assign(1, static_cast<int>(from));
    for (std::size_t next = 0; next < frontier.size(); ++next) {
      const int s = frontier[next];
      for (int t : links[static_cast<std::size_t>(s)])
        if (hops[static_cast<std::size_t>(t)] == kUnreachable) {
          hops[static_cast<std::size_t>(t)] = hops[static_cast<std::size_t>(s)] + 1;
          frontier.push_back(t);
        }
    }
  }
}

int TreeChoice::top_switch(std::span<const int> count, std::span<const int> lowest, int nodes) const {
  int top = -1;
  for (int s = 0; s < static_cast<int>(count.size()); ++s) {
    if (count[s] == 0 || count[s] < nodes) continue;
    if (top < 0 || (tree_.level[s] >= tree_.level[top] && lowest[s] <= lowest[top])) top = s;
  }
  return top;
}

int TreeChoice::next_leaf(const LeafSearch& search, int nodes) const {
  const std::span<const int> count = search.count;
  const auto compare = [&](int i, int j) {
    while (true) {
      const bool i_fits = count[i] >= nodes;
      const bool j_fits = count[j] >= nodes;
      if (i_fits && j_fits) {
        if (count[i] != count[j]) return count[i] < count[j] ? 1 : -1;
        break;
      }
      if (i_fits != j_fits) return i_fits ? 1 : -1;
      if ((parent_[i] != i || parent_[j] != j) && parent_[i] != parent_[j]) {
        i = parent_[i];
        j = parent_[j];
        continue;
      }
      break;
    }
    if (count[i] != count[j]) return count[i] > count[j] ? 1 : -1;
    if (tree_.level[i] != tree_.level[j]) return tree_.level[i] < tree_.level[j] ? 1 : -1;
    return 0;
  };
  const std::span<const std::uint32_t> distance = search.distance;
  int leaf = -1;
  for (int s : search.leaves) {
    if (search.required[s]) continue;
    if (leaf < 0 || distance[s] == kUnreachable || count[s] == 0) {
      if (leaf < 0 && count[s] > 0 && distance[s] != kUnreachable) leaf = s;
      continue;
    }
    const int better = compare(s, leaf);
    if ((distance[s] < distance[leaf] && better >= 0) || (distance[s] == distance[leaf] && better > 0))
      leaf = s;
  }
  return leaf;
}

std::optional<std::vector<int>> TreeChoice::choose(std::span<const cons_tres::NodeOffer> node,
                                                   const JobRequest& request,
                                                   cons_tres::Demand demand) const {
  if (single_path_) {
    Decision decision = choose_by_switch(node, request, demand);
    if (decision.decided) return std::move(decision.trays);
  }
  return choose_node_by_node(node, request, demand);
}

TreeChoice::Decision TreeChoice::choose_by_switch(std::span<const cons_tres::NodeOffer> node,
                                                  const JobRequest& request, cons_tres::Demand demand) const {
  const int switches = static_cast<int>(tree_.trays.size());
  if (node.empty()) return {true, std::nullopt};
  int low = std::numeric_limits<int>::max(), high = std::numeric_limits<int>::min();
  for (const cons_tres::NodeOffer& n : node) {
    low = std::min(low, n.weight);
    high = std::max(high, n.weight);
  }
  // Per switch and weight, the offered nodes attached to it; per top switch and weight, what every node
  // below it offers. Only a top switch can be the top one: any other has a parent with as many nodes, a
  // higher level and no higher weight, which the scan would keep instead.
  const std::size_t weights = static_cast<std::size_t>(high - low) + 1;
  const auto at = [weights](int s, int weight) { return static_cast<std::size_t>(s) * weights + weight; };
  thread_local std::vector<int> attached;   // kept between calls, as placements are millions
  thread_local std::vector<Offered> below;  // top switches only
  attached.assign(static_cast<std::size_t>(switches) * weights, 0);
  below.assign(static_cast<std::size_t>(switches) * weights, Offered{});
  for (const cons_tres::NodeOffer& n : node) {
    const int home = home_[n.tray];
    ++attached[at(home, n.weight - low)];
    Offered& o = below[at(root_[home], n.weight - low)];
    ++o.nodes;
    o.cpus += n.cpus;
    o.gpus += n.gpus;
  }
  thread_local std::vector<int> count, lowest;
  count.assign(switches, 0);
  lowest.assign(switches, std::numeric_limits<int>::max());
  for (int s : roots_)
    for (int w = static_cast<int>(weights); w-- > 0;)
      if (below[at(s, w)].nodes > 0) {
        count[s] += below[at(s, w)].nodes;
        lowest[s] = low + w;
      }
  const int top = top_switch(count, lowest, demand.nodes);
  if (top < 0) return {true, std::nullopt};

  // The best nodes are the lowest weight under the top switch when it suffices alone; with more weights,
  // all but the last are taken outright first, which the per-node walk does.
  const int best = lowest[top] - low;
  const Offered& group = below[at(top, best)];
  if (group.cpus < demand.cpus || group.nodes < demand.nodes || group.gpus < demand.gpus_per_job) return {};

  // Each switch's best nodes: those attached to it or below it, under the top switch (children come first
  // in bottom_up).
  for (int s = 0; s < switches; ++s)
    count[s] = enter_[top] <= enter_[s] && enter_[s] < leave_[top] ? attached[at(s, best)] : 0;
  for (int s : tree_.bottom_up)
    if (up_[s] >= 0) count[up_[s]] += count[s];
  thread_local std::vector<int> open;  // the leaves with a best node, ascending: the only ones to choose from
  open.clear();
  for (int s = 0; s < switches; ++s)
    if (count[s] > 0 && tree_.level[s] == 0) open.push_back(s);
  thread_local std::vector<char> required;
  thread_local std::vector<std::uint32_t> distance;
  required.assign(switches, 0);
  distance.assign(switches, 0);
  const LeafSearch search{open, count, required, distance};
  std::vector<int> picked;
  const auto decided = [&]() -> Decision {
    std::sort(picked.begin(), picked.end());
    return {true, std::move(picked)};
  };
  for (int previous = demand.nodes + 1; previous != demand.nodes;) {
    previous = demand.nodes;
    const int leaf = next_leaf(search, demand.nodes);
    if (leaf < 0) break;
    add_distance(distance, distance_[leaf], open);
    // The leaf's best nodes in order: its trays that are offered at the best weight.
    auto n = std::lower_bound(node.begin(), node.end(), tree_.trays[leaf].front(),
                              [](const cons_tres::NodeOffer& offer, int tray) { return offer.tray < tray; });
    for (int tray : tree_.trays[leaf]) {
      if (demand.max_nodes <= 0) break;
      while (n != node.end() && n->tray < tray) ++n;
      if (n == node.end()) break;
      if (n->tray != tray || n->weight != low + best) continue;
      cons_tres::take_node(*n, request, demand);
      picked.push_back(tray);
      if (demand.satisfied()) return decided();
    }
    count[leaf] = 0;
  }
  if (demand.satisfied()) return decided();
  return {true, std::nullopt};
}

std::optional<std::vector<int>> TreeChoice::choose_node_by_node(std::span<const cons_tres::NodeOffer> node,
                                                                const JobRequest& request,
                                                                cons_tres::Demand demand) const {
  // Everything below works on indexes into `node`.
  const int switches = static_cast<int>(tree_.trays.size());
  const auto switches_of = [&](std::size_t i) -> const std::vector<int>& { return above_[node[i].tray]; };

  std::vector<int> count(switches, 0);
  std::vector<int> lowest(switches, std::numeric_limits<int>::max());
  for (std::size_t i = 0; i < node.size(); ++i) {
    for (int s : switches_of(i)) {
      ++count[s];
      lowest[s] = std::min(lowest[s], node[i].weight);
    }
  }
  const int top = top_switch(count, lowest, demand.nodes);
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
  const auto take = [&](std::size_t i) {
    cons_tres::take_node(node[i], request, demand);
    chosen[i] = 1;
  };
  const auto allocate = [&]() -> std::optional<std::vector<int>> {
    std::vector<int> picked;
    for (std::size_t i = 0; i < node.size(); ++i)
      if (chosen[i]) picked.push_back(node[i].tray);
    return picked;
  };
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
    for (int s = 0; s < switches; ++s) {
      if (!required[s] || tree_.level[s] != 0) continue;
      for (std::size_t i : members_of(s)) {
        if (chosen[i]) continue;
        take(i);
        if (demand.satisfied()) return allocate();
      }
    }
  }

  // Then leaf switches one at a time: the nearest to the required ones, the tightest in nodes.
  std::vector<std::uint32_t> distance(switches, 0);
  for (int s = 0; s < switches; ++s)
    if (required[s]) add_distance(distance, distance_[s], leaves_);
  const LeafSearch search{leaves_, count, required, distance};
  for (int previous = demand.nodes + 1; previous != demand.nodes;) {
    previous = demand.nodes;
    const int leaf = next_leaf(search, demand.nodes);
    if (leaf < 0) break;
    add_distance(distance, distance_[leaf], leaves_);
    for (std::size_t i : members_of(leaf)) {
      if (demand.max_nodes <= 0) break;
      if (chosen[i]) continue;
      take(i);
      if (demand.satisfied()) return allocate();
    }
    count[leaf] = 0;
  }
  if (demand.satisfied()) return allocate();
  return std::nullopt;
}

}  // namespace nvlsim
