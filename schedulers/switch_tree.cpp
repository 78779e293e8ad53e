#include "schedulers/switch_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "models/input_error.hpp"

namespace nvlsim {
namespace {

SwitchTree rail_fat_tree(const PolicyContext& context) {
  SwitchTree tree;
  const int trays = context.shape.trays();
  for (int first = 0; first < trays; first += context.trays_per_leaf) {
    tree.names.push_back(fmt::format("leaf{}", tree.names.size()));
    std::vector<int>& leaf = tree.trays.emplace_back();
    for (int tray = first; tray < std::min(trays, first + context.trays_per_leaf); ++tray)
      leaf.push_back(tray);
    tree.children.emplace_back();
  }
  const int leaves = static_cast<int>(tree.trays.size());
  const int per_group = context.leaves_per_group > 0 ? context.leaves_per_group : leaves;
  std::vector<int> tops;
  if (leaves == 1) tops.push_back(0);
  for (int first = 0; leaves > 1 && first < leaves; first += per_group) {
    tops.push_back(static_cast<int>(tree.children.size()));
    tree.names.push_back(fmt::format("spine{}", tops.size() - 1));
    std::vector<int>& group = tree.children.emplace_back();
    for (int leaf = first; leaf < std::min(leaves, first + per_group); ++leaf) group.push_back(leaf);
    tree.trays.emplace_back();
  }
  if (tops.size() > 1) {
    tree.names.push_back("core");
    tree.children.push_back(tops);
    tree.trays.emplace_back();
  }
  return tree;
}

SwitchTree topology_tree(const SlurmTopology& topology, const ClusterShape& shape) {
  SwitchTree tree;
  std::vector<std::uint8_t> seen(shape.trays(), 0);
  for (const SlurmSwitch& sw : topology.switches) {
    for (int tray : sw.trays) {
      if (tray < 0 || tray >= shape.trays()) {
        throw InputError(fmt::format("topology switch {}: node {} is beyond the machine's {} trays", sw.name,
                                     tray, shape.trays()));
      }
      if (seen[tray]++)
        throw InputError(fmt::format("topology switch {}: node {} is under two switches", sw.name, tray));
    }
    std::vector<int> trays = sw.trays;
    std::sort(trays.begin(), trays.end());
    tree.names.push_back(sw.name);
    tree.trays.push_back(std::move(trays));
    tree.children.push_back(sw.children);
  }
  return tree;
}

}  // namespace

void follow_fabric(PolicyContext& context, const IbFabric& fabric) {
  context.trays_per_leaf = fabric.trays_per_leaf();
  context.leaves_per_group = fabric.pods() > 1 ? fabric.leaf_groups_per_pod() : 0;
}

SwitchTree make_switch_tree(const PolicyContext& context) {
  SwitchTree tree = context.topology && !context.topology->switches.empty()
                        ? topology_tree(*context.topology, context.shape)
                        : rail_fat_tree(context);
  const int switches = static_cast<int>(tree.trays.size());
  tree.level.assign(switches, -1);
  std::vector<std::uint8_t> visiting(switches, 0);
  // Depth-first, so a switch is listed after its children; a switch met again while open is a cycle. An
  // explicit stack, since a hand-written topology may chain switches deeper than the call stack allows.
  std::vector<std::pair<int, std::size_t>> open;  // switch, next child to visit
  for (int root = 0; root < switches; ++root) {
    if (tree.level[root] >= 0) continue;
    visiting[root] = 1;
    open.push_back({root, 0});
    while (!open.empty()) {
      const int s = open.back().first;
      const std::size_t next = open.back().second;
      if (next < tree.children[s].size()) {
        ++open.back().second;
        const int child = tree.children[s][next];
        if (tree.level[child] >= 0) continue;
        if (visiting[child])
          throw InputError(
              fmt::format("topology switches form a cycle through switch {}", tree.names[child]));
        visiting[child] = 1;
        open.push_back({child, 0});
        continue;
      }
      int level = 0;
      for (int child : tree.children[s]) level = std::max(level, tree.level[child] + 1);
      tree.level[s] = level;
      tree.bottom_up.push_back(s);
      open.pop_back();
    }
  }
  return tree;
}

}  // namespace nvlsim
