#include "schedulers/tree_choice.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

// The per-switch path of TreeChoice::choose (tree_choice.hpp).

namespace nvlsim {

TreeChoice::Decision TreeChoice::choose_by_switch(std::span<const cons_tres::NodeOffer> node,
                                                  const JobRequest& request, cons_tres::Demand demand) const {
  if (node.empty()) return {true, std::nullopt};
  int low = std::numeric_limits<int>::max(), high = std::numeric_limits<int>::min();
  for (const cons_tres::NodeOffer& n : node) {
    low = std::min(low, n.weight);
    high = std::max(high, n.weight);
  }
  thread_local SwitchSums sums;  // kept between calls, as placements are millions
  sums.low = low;
  sums.weights = high - low + 1;
  sums.attached.assign(static_cast<std::size_t>(switches()) * sums.weights, OfferSum{});
  // Summed over each stretch of nodes with one switch and weight before they are added: the nodes come by
  // tray, a switch's trays in a row, and adding each node to the sums in memory made every addition wait
  // for the one before (the same holds for the counts summed up the tree below).
  int home = -1;
  int weight = 0;
  OfferSum stretch;
  const auto add_stretch = [&] {
    if (stretch.nodes == 0) return;
    OfferSum& o = sums.at(home, weight);
    o.nodes += stretch.nodes;
    o.cpus += stretch.cpus;
    o.gpus += stretch.gpus;
    o.free_cpus += stretch.free_cpus;
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
    stretch.free_cpus += n.free_cpus;
  }
  add_stretch();
  // A leaf's offers in order: from the first offer of its first tray on.
  return decide(sums, request, demand, [&](int leaf, auto&& visit) {
    const std::vector<int>& trays = tree_.trays[leaf];
    auto n = std::lower_bound(node.begin(), node.end(), trays.front(),
                              [](const cons_tres::NodeOffer& offer, int tray) { return offer.tray < tray; });
    for (int tray : trays) {
      while (n != node.end() && n->tray < tray) ++n;
      if (n == node.end()) return;
      if (n->tray == tray && !visit(*n)) return;
    }
  });
}

TreeChoice::Decision TreeChoice::choose_from_sums(const SwitchSums& sums, const JobRequest& request,
                                                  cons_tres::Demand demand, const OfferAt& offer_at) const {
  // 24.11's free-core tests are decided by lower bounds (one core per node, at least the nodes counted) only
  // while the job needs no more CPUs than nodes; each node taken lowers both, the CPUs by at least one.
  if (counts_cpus() && demand.cpus > demand.nodes) return {};
  return decide(sums, request, demand, [&](int leaf, auto&& visit) {
    for (int tray : tree_.trays[leaf]) {
      const std::optional<cons_tres::NodeOffer> n = offer_at(tray);
      if (n && !visit(*n)) return;
    }
  });
}

bool TreeChoice::take_best(const cons_tres::NodeOffer& n, int best_weight, const JobRequest& request,
                           cons_tres::Demand& demand, std::vector<int>& picked) const {
  if (demand.max_nodes <= 0 || demand.satisfied()) return false;
  if (n.weight != best_weight) return true;
  cons_tres::take_node(n, request, demand, version_);
  picked.push_back(n.tray);
  return !demand.satisfied();
}

// decide() with one top switch and trays on leaves only, up to its first leaf: the top switch is the one
// at the top when it has enough nodes; the best weight there is that of the trays at level t (the level
// from which offers weigh least; an offer's weight never rises with the tray's free GPUs), when some tray
// has it; and the first leaf, all distances being nought, is the tightest that fits.
TreeChoice::Decision TreeChoice::choose_in_one_leaf(const TrayGroupIndex& index, const JobRequest& request,
                                                    cons_tres::Demand demand, const OfferAt& offer_at) const {
  const int per_tray = index.per_tray();
  int offered_from = 0;  // the fewest free GPUs of a tray with an offer
  int t = 0;
  int best_weight = std::numeric_limits<int>::max();
  for (int k = 1; k <= per_tray; ++k) {
    const std::optional<cons_tres::NodeOffer> offer =
        cons_tres::offer_of(0, k, 1, per_tray, request, version_);
    if (!offer) continue;
    if (offered_from == 0) offered_from = k;
    if (offer->weight < best_weight) {
      best_weight = offer->weight;
      t = k;
    }
  }
  if (offered_from == 0) return {true, std::nullopt};
  const int offered = index.total(offered_from);
  if (offered == 0 || offered < demand.nodes) return {true, std::nullopt};
  // -1 when no leaf has enough trays at level t. decide()'s test of the best weight's sums is left out: a
  // leaf whose best trays satisfy the job passes it.
  const int group = index.tightest(t, demand.nodes);
  if (group < 0) return {};
  std::vector<int> picked;
  for (int tray : tree_.trays[homes_[group]]) {
    const std::optional<cons_tres::NodeOffer> n = offer_at(tray);
    if (n && !take_best(*n, best_weight, request, demand, picked)) break;
  }
  if (!demand.satisfied()) return {};
  return {true, std::move(picked)};
}

template <typename LeafOffers>
TreeChoice::Decision TreeChoice::decide(const SwitchSums& sums, const JobRequest& request,
                                        cons_tres::Demand demand, LeafOffers leaf_offers) const {
  const int switches = this->switches();
  const int weights = sums.weights;
  // Per top switch and weight, what every node below it offers. Only a top switch can be the top one: any
  // other has a parent with as many nodes, a higher level and no higher weight, which the scan would keep
  // instead.
  thread_local std::vector<OfferSum> below;  // per top switch (its place in roots_) and weight
  below.assign(roots_.size() * static_cast<std::size_t>(weights), OfferSum{});
  for (int s : homes_)
    for (int w = 0; w < weights; ++w) {
      const OfferSum& a = sums.at(s, w);
      if (a.nodes == 0) continue;
      OfferSum& o = below[static_cast<std::size_t>(root_slot_[s]) * weights + w];
      o.nodes += a.nodes;
      o.cpus += a.cpus;
      o.gpus += a.gpus;
    }
  const auto below_at = [&](int s, int w) -> const OfferSum& {
    return below[static_cast<std::size_t>(root_slot_[s]) * weights + w];
  };
  thread_local std::vector<int> count, lowest, cpus;
  count.assign(switches, 0);
  lowest.assign(switches, std::numeric_limits<int>::max());
  for (int s : roots_)
    for (int w = weights; w-- > 0;)
      if (below_at(s, w).nodes > 0) {
        count[s] += below_at(s, w).nodes;
        lowest[s] = sums.low + w;
      }
  // 24.11's switch_cpu_cnt: the free cores of every node offered below each switch, any weight.
  cpus.assign(counts_cpus() ? switches : 0, 0);
  if (counts_cpus()) {
    for (int s : homes_)
      for (int w = 0; w < weights; ++w) cpus[s] += sums.at(s, w).free_cpus;
    sum_up(cpus);
  }
  const int top = top_switch(count, lowest, cpus, demand);
  if (top < 0) return {true, std::nullopt};

  // The best nodes are the lowest weight under the top switch when it suffices alone; with more weights,
  // all but the last are taken outright first, which the per-node walk does.
  const int best = lowest[top] - sums.low;
  const OfferSum& group = below_at(top, best);
  if (group.cpus < demand.cpus || group.nodes < demand.nodes || group.gpus < demand.gpus_per_job) return {};

  // Each switch's best nodes: those attached to it or below it, under the top switch (children come first
  // in bottom_up).
  count.assign(switches, 0);
  for (int s : homes_)
    if (enter_[top] <= enter_[s] && enter_[s] < leave_[top]) count[s] = sums.at(s, best).nodes;
  // Summed over each stretch of switches with one parent before it is added, for the reason above. The
  // last switch listed is a top switch, so nothing is left to add after the loop.
  int parent = -1;
  int stretch = 0;
  for (int s : tree_.bottom_up) {
    if (up_[s] != parent) {
      if (parent >= 0) count[parent] += stretch;
      parent = up_[s];
      stretch = 0;
    }
    stretch += count[s];
  }
  thread_local std::vector<int> open;  // the leaves with a best node, ascending: the only ones to choose from
  open.clear();
  for (int s : leaves_)
    if (count[s] > 0) open.push_back(s);
  thread_local std::vector<char> required;
  thread_local std::vector<std::uint32_t> distance;
  required.assign(switches, 0);
  distance.assign(switches, 0);
  const LeafSearch search{open, count, required, distance, cpus};
  std::vector<int> picked;
  const auto decided = [&]() -> Decision { return {true, std::move(picked)}; };
  for (int previous = demand.nodes + 1; previous != demand.nodes;) {
    previous = demand.nodes;
    const int leaf = next_leaf(search, demand);
    if (leaf < 0) break;
    add_distance(distance, distance_[leaf], open);
    // The leaf's best nodes in order: its trays that are offered at the best weight.
    leaf_offers(leaf, [&](const cons_tres::NodeOffer& n) {
      return take_best(n, sums.low + best, request, demand, picked);
    });
    if (demand.satisfied()) return decided();
    if (counts_cpus()) take_off(count, leaf, count[leaf]);
    count[leaf] = 0;
  }
  if (demand.satisfied()) return decided();
  return {true, std::nullopt};
}

}  // namespace nvlsim
