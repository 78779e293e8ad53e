#include "schedulers/tree_choice.hpp"

#include <algorithm>
#include <limits>
#include <utility>

// The per-switch path of TreeChoice::choose (tree_choice.hpp).

namespace nvlsim {
namespace {

// What the offered nodes of one weight give, summed under a switch.
struct Offered {
  int nodes = 0;
  int cpus = 0;
  int gpus = 0;
};

}  // namespace

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
  // Summed over each stretch of nodes with one switch and weight before they are added: the nodes come by
  // tray, a switch's trays in a row, and adding each node to the counters in memory made every addition
  // wait for the one before.
  int home = -1;
  int weight = 0;
  Offered stretch;
  const auto add_stretch = [&] {
    if (stretch.nodes == 0) return;
    attached[at(home, weight)] += stretch.nodes;
    Offered& o = below[at(root_[home], weight)];
    o.nodes += stretch.nodes;
    o.cpus += stretch.cpus;
    o.gpus += stretch.gpus;
    stretch = {};
  };
  for (const cons_tres::NodeOffer& n : node) {
    if (home_[n.tray] != home || n.weight - low != weight) {
      add_stretch();
      home = home_[n.tray];
      weight = n.weight - low;
    }
    ++stretch.nodes;
    stretch.cpus += n.cpus;
    stretch.gpus += n.gpus;
  }
  add_stretch();
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

}  // namespace nvlsim
