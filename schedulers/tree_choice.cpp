#include "schedulers/tree_choice.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "models/input_error.hpp"

namespace nvlsim {
namespace {

constexpr std::uint32_t kUnreachable = std::numeric_limits<std::uint32_t>::max();

}  // namespace

void TreeChoice::add_distance(std::span<std::uint32_t> sum, const std::vector<std::uint32_t>& row,
                              std::span<const int> at) {
  for (int s : at) sum[s] = sum[s] == kUnreachable || row[s] == kUnreachable ? kUnreachable : sum[s] + row[s];
}

TreeChoice::TreeChoice(SwitchTree tree, SlurmVersion version) : tree_(std::move(tree)), version_(version) {
  const std::size_t switches = tree_.trays.size();
  if (switches > kMaxTreeSwitches)
    throw InputError(
        fmt::format("tree: {} switches, more than the {} it handles (it keeps the hops between "
                    "every two)",
                    switches, kMaxTreeSwitches));
  std::vector<std::vector<int>> under(switches);  // per switch: every tray below it, ascending
  // Slurm sets each switch's parent from its parents' lists in switch order, so the last one wins.
  parent_.assign(switches, counts_cpus() ? -1 : 0);
  for (std::size_t s = 0; s < switches; ++s)
    for (int child : tree_.children[s]) parent_[child] = static_cast<int>(s);
  up_.assign(switches, -1);
  single_path_ = true;
  int trays = 0;
  for (int s : tree_.bottom_up) {
    under[s] = tree_.trays[s];
    for (int child : tree_.children[s]) {
      under[s].insert(under[s].end(), under[child].begin(), under[child].end());
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
  bool consecutive = true;
  bool leaves_only = true;
  std::size_t largest = 0;
  std::vector<TrayRun> runs;
  for (std::size_t s = 0; s < switches && single_path_; ++s) {
    const std::vector<int>& own = tree_.trays[s];
    if (own.empty()) continue;
    homes_.push_back(static_cast<int>(s));
    consecutive = consecutive && own.back() - own.front() + 1 == static_cast<int>(own.size());
    leaves_only = leaves_only && tree_.level[s] == 0;
    largest = std::max(largest, own.size());
    runs.push_back({own.front(), own.back() + 1});
  }
  const bool small_index = largest * ((runs.size() + 63) / 64) <= kMaxLeafIndexWords;
  if (consecutive && !runs.empty())
    home_trays_ = std::make_shared<const std::vector<TrayRun>>(std::move(runs));
  root_.assign(switches, -1);
  for (auto s = tree_.bottom_up.rbegin(); s != tree_.bottom_up.rend(); ++s) {
    root_[*s] = up_[*s] < 0 ? *s : root_[up_[*s]];
    if (up_[*s] < 0) roots_.push_back(*s);
  }
  std::sort(roots_.begin(), roots_.end());
  if (ranged() && leaves_only && small_index && roots_.size() == 1) leaf_groups_ = home_trays_;
  root_slot_.assign(switches, 0);
  for (std::size_t s = 0; s < switches; ++s)
    root_slot_[s] =
        static_cast<int>(std::lower_bound(roots_.begin(), roots_.end(), root_[s]) - roots_.begin());
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

int TreeChoice::top_switch(std::span<const int> count, std::span<const int> lowest, std::span<const int> cpus,
                           const cons_tres::Demand& demand) const {
  int top = -1;
  for (int s = 0; s < static_cast<int>(count.size()); ++s) {
    if (count[s] == 0 || count[s] < demand.nodes) continue;
    if (counts_cpus() && demand.cpus > cpus[s]) continue;
    if (top < 0 || (tree_.level[s] >= tree_.level[top] && lowest[s] <= lowest[top])) top = s;
  }
  return top;
}

int TreeChoice::next_leaf(const LeafSearch& search, const cons_tres::Demand& demand) const {
  const std::span<const int> count = search.count;
  const auto fits = [&](int s) {
    return count[s] >= demand.nodes && (!counts_cpus() || search.cpus[s] >= demand.cpus);
  };
  // _topo_compare_switches: 1 when i is the better, -1 when j is, else 0; i_fits tells whether i fit at the
  // level where the comparison ended.
  const auto compare = [&](int i, int j, bool& i_fits) {
    while (true) {
      i_fits = fits(i);
      const bool j_fits = fits(j);
      if (i_fits && j_fits) {
        if (count[i] != count[j]) return count[i] < count[j] ? 1 : -1;
        break;
      }
      if (i_fits != j_fits) return i_fits ? 1 : -1;
      // 24.11 reads past its switch table when only one side has a parent (leaves at unequal depths); the
      // comparison stops there instead.
      if ((parent_[i] != i || parent_[j] != j) && parent_[i] != parent_[j] && parent_[i] >= 0 &&
          parent_[j] >= 0) {
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
    bool s_fits = false;
    const int better = compare(s, leaf, s_fits);
    const bool nearer_wins = counts_cpus() ? s_fits : better >= 0;
    if ((distance[s] < distance[leaf] && nearer_wins) || (distance[s] == distance[leaf] && better > 0))
      leaf = s;
  }
  return leaf;
}

void TreeChoice::take_off(std::span<int> count, int s, int taken) const {
  for (; s >= 0; s = parent_[s]) count[s] = std::max(count[s] - taken, 0);
}

void TreeChoice::sum_up(std::span<int> below) const {
  for (int s : tree_.bottom_up)
    if (up_[s] >= 0) below[up_[s]] += below[s];
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

}  // namespace nvlsim
