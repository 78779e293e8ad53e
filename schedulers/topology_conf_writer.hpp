#pragma once
// Writes what the tree and block policies see as a Slurm topology.conf (topology/tree's switches,
// topology/block's blocks), so the same topology can be handed to a real Slurm (and read back by
// read_slurm_topology).

#include <span>
#include <string>

#include "schedulers/block_layout.hpp"
#include "schedulers/switch_tree.hpp"

namespace nvlsim {

// One `SwitchName=... Nodes=...` or `SwitchName=... Switches=...` line per switch, in the tree's order
// (Slurm's order, which its topology/tree breaks ties by). Tray i is named node_names[i].
std::string topology_conf_text(const SwitchTree& tree, std::span<const std::string> node_names);

// One `BlockName=blockB Nodes=...` line per base block in order, then `BlockSizes=` with the layout's
// levels (Slurm 23.11+ topology/block). Tray i is named node_names[i].
std::string block_topology_conf_text(const BlockLayout& layout, std::span<const std::string> node_names);

}  // namespace nvlsim
