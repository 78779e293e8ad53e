#include "schedulers/tree_policy.hpp"

#include <algorithm>
#include <limits>
#include <span>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "models/input_error.hpp"
#include "schedulers/cons_tres_select.hpp"
#include "schedulers/shard_select.hpp"

namespace nvlsim {
namespace {

constexpr std::uint32_t kUnreachable = std::numeric_limits<std::uint32_t>::max();

void add_distance(std::vector<std::uint32_t>& sum, const std::vector<std::uint32_t>& row) {
  for (std::size_t s = 0; s < sum.size(); ++s)
    sum[s] = sum[s] == kUnreachable || row[s] == kUnreachable ? kUnreachable : sum[s] + row[s];
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

}  // namespace

TreePolicy::TreePolicy(std::string name, SwitchTree tree) : name_(std::move(name)), tree_(std::move(tree)) {
  const std::size_t switches = tree_.trays.size();
  if (switches > kMaxTreeSwitches)
    throw InputError(
        fmt::format("tree: {} switches, more than the {} it handles (it keeps the hops between "
                    "every two)",
                    switches, kMaxTreeSwitches));
  std::vector<std::vector<int>> under(switches);  // per switch: every tray below it, ascending
  parent_.assign(switches, 0);
  int trays = 0;
  for (int s : tree_.bottom_up) {
    under[s] = tree_.trays[s];
    for (int child : tree_.children[s]) {
      under[s].insert(under[s].end(), under[child].begin(), under[child].end());
      parent_[child] = s;
    }
    std::sort(under[s].begin(), under[s].end());
    under[s].erase(std::unique(under[s].begin(), under[s].end()), under[s].end());
    if (!under[s].empty()) trays = std::max(trays, under[s].back() + 1);
  }
  above_.resize(trays);
  for (std::size_t s = 0; s < switches; ++s)
    for (int tray : under[s]) above_[tray].push_back(static_cast<int>(s));
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

std::optional<Allocation> TreePolicy::place(const ClusterState& state, const JobRequest& request) const {
  if (request.gpus < 1) throw std::invalid_argument("tree: a request needs at least one GPU");
  if (!may_fit(state, request)) return std::nullopt;
  const auto under_a_switch = [&](int tray) {
    return tray < static_cast<int>(above_.size()) && !above_[tray].empty();
  };
  if (request.shards > 0) {
    // A share job goes through the same _eval_nodes_topo, every tray that can serve at one weight
    // (docs/sharing.md, "Shares under tree"); on each chosen tray, its first GPU with enough free shares.
    std::vector<cons_tres::NodeOffer> node = cons_tres::share_offers(state, request);
    std::erase_if(node, [&](const cons_tres::NodeOffer& n) { return !under_a_switch(n.tray); });
    const auto trays = choose_trays(node, request, cons_tres::share_demand(request));
    if (!trays) return std::nullopt;
    return cons_tres::share_allocation(state, *trays, request);
  }
  // The nodes Slurm considers, ascending.
  thread_local std::vector<cons_tres::NodeOffer> node;  // kept between calls, as placements are millions
  node.clear();
  state.for_each_tray_with_free_gpus([&](int tray) {
    if (!under_a_switch(tray)) return;
    if (auto offered = cons_tres::offer(state, tray, request)) node.push_back(*offered);
  });
  const auto trays = choose_trays(node, request, cons_tres::initial_demand(state, request));
  if (!trays) return std::nullopt;
  return cons_tres::pick_gpus(state, *trays, request);
}

std::optional<std::vector<int>> TreePolicy::choose_trays(std::span<const cons_tres::NodeOffer> node,
                                                         const JobRequest& request,
                                                         cons_tres::Demand demand) const {
  // Everything below works on indexes into `node`.
  const int switches = static_cast<int>(tree_.trays.size());
  const auto switches_of = [&](std::size_t i) -> const std::vector<int>& { return above_[node[i].tray]; };

  // The top switch: the highest that has enough nodes and, among those, the lowest weight (later wins ties).
  std::vector<int> count(switches, 0);
  std::vector<int> lowest(switches, std::numeric_limits<int>::max());
  for (std::size_t i = 0; i < node.size(); ++i) {
    for (int s : switches_of(i)) {
      ++count[s];
      lowest[s] = std::min(lowest[s], node[i].weight);
    }
  }
  int top = -1;
  for (int s = 0; s < switches; ++s) {
    if (count[s] == 0 || count[s] < demand.nodes) continue;
    if (top < 0 || (tree_.level[s] >= tree_.level[top] && lowest[s] <= lowest[top])) top = s;
  }
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
    if (required[s]) add_distance(distance, distance_[s]);
  const auto compare = [&](int i, int j) {
    while (true) {
      const bool i_fits = count[i] >= demand.nodes;
      const bool j_fits = count[j] >= demand.nodes;
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
  for (int previous = demand.nodes + 1; previous != demand.nodes;) {
    previous = demand.nodes;
    int leaf = -1;
    for (int s = 0; s < switches; ++s) {
      if (required[s] || tree_.level[s] != 0) continue;
      if (leaf < 0 || distance[s] == kUnreachable || count[s] == 0) {
        if (leaf < 0 && count[s] > 0 && distance[s] != kUnreachable) leaf = s;
        continue;
      }
      const int better = compare(s, leaf);
      if ((distance[s] < distance[leaf] && better >= 0) || (distance[s] == distance[leaf] && better > 0))
        leaf = s;
    }
    if (leaf < 0) break;
    add_distance(distance, distance_[leaf]);
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

bool TreePolicy::may_fit(const ClusterState& state, const JobRequest& request) const {
  if (request.shards > 0) return cons_tres::shares_may_fit(state, request);
  return cons_tres::may_fit(state, request);
}

const PolicyType kTreePolicy{
    .name = "tree",
    .summary = "Slurm topology/tree over the InfiniBand fabric",
    .params = {},
    .make = [](const PolicyConfig& config, const PolicyContext& context) -> std::unique_ptr<PlacementPolicy> {
      return std::make_unique<TreePolicy>(config.text, make_switch_tree(context));
    },
};

}  // namespace nvlsim
