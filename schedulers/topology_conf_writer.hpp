#pragma once
// Writes the switch hierarchy a tree policy sees as a Slurm topology.conf, so the same tree can be handed
// to a real Slurm (and read back by read_slurm_topology).

#include <span>
#include <string>

#include "schedulers/switch_tree.hpp"

namespace nvlsim {

// One `SwitchName=... Nodes=...` or `SwitchName=... Switches=...` line per switch, in the tree's order
// (Slurm's order, which its topology/tree breaks ties by). Tray i is named node_names[i].
std::string topology_conf_text(const SwitchTree& tree, std::span<const std::string> node_names);

}  // namespace nvlsim
