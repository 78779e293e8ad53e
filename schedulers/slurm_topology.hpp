#pragma once
// A Slurm topology description (topology.conf, or topology.yaml as of Slurm 25.05) with node names
// resolved to tray ids.

#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nvlsim {

struct SlurmBlock {
  std::string name;
  std::vector<int> trays;  // in the order listed; empty for a placeholder that only keeps alignment
};

struct SlurmSwitch {
  std::string name;
  std::vector<int> trays;     // nodes directly attached (a leaf switch)
  std::vector<int> children;  // indices into SlurmTopology::switches
};

struct SlurmTopology {
  std::vector<SlurmBlock> blocks;  // in file order: higher-level blocks are aligned groups by position
  std::vector<int> block_sizes;    // nodes per block at each level; empty when the file sets none
  std::vector<SlurmSwitch> switches;
};

// Reads topology.conf, or topology.yaml when the name ends in .yaml or .yml; a folder, a file over 16 MiB
// or one that describes no block and no switch is an error. Node names map to trays
// through `node_names` (tray i is node_names[i]) or, when it is empty, by order of first appearance, where
// a node past the platform's `trays` is an error naming it and its line.
// Throws InputError "FILE:LINE: what" for unreadable files, malformed lines, unknown or repeated nodes,
// unknown switches and BlockSizes that are not base x 2^k; topology.yaml (read by yaml-cpp) names the
// field too, "FILE:LINE: block.blocks[1].nodes: expected a string", and reports YAML syntax errors,
// wrong types, missing, repeated and unknown keys.
SlurmTopology read_slurm_topology(const std::string& path, std::span<const std::string> node_names = {},
                                  int trays = std::numeric_limits<int>::max());

// The same from text; `file` names it in errors.
SlurmTopology parse_topology_conf(std::string_view text, std::string_view file,
                                  std::span<const std::string> node_names = {},
                                  int trays = std::numeric_limits<int>::max());
SlurmTopology parse_topology_yaml(std::string_view text, std::string_view file,
                                  std::span<const std::string> node_names = {},
                                  int trays = std::numeric_limits<int>::max());

}  // namespace nvlsim
