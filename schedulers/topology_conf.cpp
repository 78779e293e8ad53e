// topology.conf: one BlockName=, BlockSizes= or SwitchName= entry per line.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "schedulers/slurm_topology.hpp"
#include "schedulers/topology_builder.hpp"

namespace nvlsim {
namespace {

// "key=value" tokens of a topology.conf line, split on blanks.
std::vector<std::pair<std::string_view, std::string_view>> conf_tokens(std::string_view line,
                                                                       const TopologyBuilder& b, int number) {
  std::vector<std::pair<std::string_view, std::string_view>> tokens;
  for (std::size_t start = line.find_first_not_of(" \t\r"); start != std::string_view::npos;) {
    const std::size_t end = std::min(line.find_first_of(" \t\r", start), line.size());
    const std::string_view token = line.substr(start, end - start);
    const std::size_t equals = token.find('=');
    if (equals == std::string_view::npos || equals == 0) {
      throw b.error(number, fmt::format("'{}' is not Key=Value", token));
    }
    tokens.emplace_back(token.substr(0, equals), token.substr(equals + 1));
    start = line.find_first_not_of(" \t\r", end);
  }
  return tokens;
}

}  // namespace

SlurmTopology parse_topology_conf(std::string_view text, std::string_view file,
                                  std::span<const std::string> node_names, int trays) {
  TopologyBuilder builder(file, node_names, trays);
  int number = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    line = line.substr(0, line.find('#'));
    const auto tokens = conf_tokens(line, builder, number);
    if (tokens.empty()) continue;
    std::string_view nodes;
    std::string_view switches;
    for (std::size_t i = 1; i < tokens.size(); ++i) {
      const auto& [key, value] = tokens[i];
      if (key == "Nodes") {
        nodes = value;
      } else if (key == "Switches" && tokens[0].first == "SwitchName") {
        switches = value;
      } else if (key != "LinkSpeed") {
        throw builder.error(number, fmt::format("unknown key '{}' for {}", key, tokens[0].first));
      }
    }
    const auto [kind, name] = tokens[0];
    const Where at{number, {}};
    if (kind == "BlockSizes" && tokens.size() == 1) {
      builder.set_block_sizes(builder.expand(name, at), at);
    } else if (kind == "BlockName" && !name.empty()) {
      builder.add_block(std::string(name), at, nodes, at);
    } else if (kind == "SwitchName" && !name.empty()) {
      builder.add_switch(std::string(name), at, nodes, at, switches, at);
    } else {
      throw builder.error(number,
                          fmt::format("expected BlockName=, BlockSizes= or SwitchName=, got '{}'", line));
    }
  }
  return builder.finish();
}

}  // namespace nvlsim
