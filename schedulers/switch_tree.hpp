#pragma once
// The InfiniBand switch hierarchy as Slurm's topology/tree sees it: leaf switches own trays, upper
// switches own switches.

#include <string>
#include <vector>

#include "models/ib_fabric.hpp"
#include "schedulers/policy_spec.hpp"

namespace nvlsim {

struct SwitchTree {
  std::vector<std::string> names;
  std::vector<std::vector<int>> trays;     // per switch: trays attached directly, ascending
  std::vector<std::vector<int>> children;  // per switch: child switches
  std::vector<int> level;                  // 0 for a leaf, else 1 + the highest child level
  std::vector<int> bottom_up;              // every switch after all its children
};

// Sets the context's leaf grouping to the fabric's own: a leaf per trays_per_leaf trays and, on a
// three-tier fabric, a spine group per pod, so that tree's default switches are the platform's.
void follow_fabric(PolicyContext& context, const IbFabric& fabric);

// The context's topology switches when it has some; else the rail-optimized fat tree: leaf j holds trays
// [j * trays_per_leaf, (j + 1) * trays_per_leaf) (on every rail alike), leaves_per_group leaves per
// spine group (0 = all), and one root over the groups when there are several. Throws InputError when a
// topology tray is outside the machine or under two leaves, or the switches form a cycle.
SwitchTree make_switch_tree(const PolicyContext& context);

}  // namespace nvlsim
