#include "schedulers/topology_conf_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "schedulers/hostlist.hpp"

namespace nvlsim {

std::string topology_conf_text(const SwitchTree& tree, std::span<const std::string> node_names) {
  std::string out = "# Written by nvlsim: the switches its tree policy places under.\n";
  for (std::size_t s = 0; s < tree.names.size(); ++s) {
    std::vector<std::string> members;
    if (!tree.trays[s].empty()) {
      for (int tray : tree.trays[s]) members.push_back(node_names[tray]);
      out += fmt::format("SwitchName={} Nodes={}\n", tree.names[s], compress_hostlist(members));
    } else {
      for (int child : tree.children[s]) members.push_back(tree.names[child]);
      out += fmt::format("SwitchName={} Switches={}\n", tree.names[s], compress_hostlist(members));
    }
  }
  return out;
}

std::string block_topology_conf_text(const BlockLayout& layout, std::span<const std::string> node_names) {
  std::string out = "# Written by nvlsim: the blocks its block policies place in, one per NVLink domain.\n";
  for (std::size_t b = 0; b < layout.blocks.size(); ++b) {
    std::vector<std::string> members;
    for (int tray : layout.blocks[b]) members.push_back(node_names[tray]);
    out += fmt::format("BlockName=block{} Nodes={}\n", b, compress_hostlist(members));
  }
  return out + fmt::format("BlockSizes={}\n", fmt::join(layout.level_sizes, ","));
}

}  // namespace nvlsim
