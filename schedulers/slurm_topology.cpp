#include "schedulers/slurm_topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "models/input_error.hpp"
#include "schedulers/hostlist.hpp"
#include "schedulers/mini_yaml.hpp"

namespace nvlsim {
namespace {

// Node names to trays: the given list, or first appearance in the file.
class NodeMap {
 public:
  explicit NodeMap(std::span<const std::string> names) : fixed_(!names.empty()) {
    for (std::size_t i = 0; i < names.size(); ++i) trays_.emplace(names[i], static_cast<int>(i));
  }
  // nullopt for a name missing from a fixed list.
  std::optional<int> tray(const std::string& name) {
    const auto found = trays_.find(name);
    if (found != trays_.end()) return found->second;
    if (fixed_) return std::nullopt;
    const int tray = static_cast<int>(trays_.size());
    trays_.emplace(name, tray);
    return tray;
  }

 private:
  bool fixed_;
  std::unordered_map<std::string, int> trays_;
};

// Reads one topology: errors carry FILE:LINE; switches name children resolved after all are read.
class Builder {
 public:
  Builder(std::string_view file, std::span<const std::string> names) : file_(file), nodes_(names) {}

  InputError error(int line, std::string_view what) const {
    return InputError(fmt::format("{}:{}: {}", file_, line, what));
  }

  std::vector<std::string> expand(std::string_view hostlist, int line) const {
    try {
      return expand_hostlist(hostlist);
    } catch (const std::invalid_argument& e) {
      throw error(line, e.what());
    }
  }

  std::vector<int> trays(std::string_view hostlist, int line) {
    std::vector<int> result;
    for (const std::string& name : expand(hostlist, line)) {
      const std::optional<int> tray = nodes_.tray(name);
      if (!tray) throw error(line, fmt::format("unknown node '{}'", name));
      result.push_back(*tray);
    }
    return result;
  }

  void add_block(std::string name, std::string_view hostlist, int line) {
    if (blocks_.contains(name)) throw error(line, fmt::format("block '{}' defined twice", name));
    blocks_.emplace(name, line);
    topology_.blocks.push_back(
        {std::move(name), hostlist.empty() ? std::vector<int>{} : trays(hostlist, line)});
  }

  void set_block_sizes(const std::vector<std::string>& sizes, int line) {
    if (!topology_.block_sizes.empty()) throw error(line, "BlockSizes given twice");
    for (const std::string& text : sizes) {
      int size = 0;
      const auto [end, failed] = std::from_chars(text.data(), text.data() + text.size(), size);
      if (failed != std::errc() || end != text.data() + text.size() || size < 1) {
        throw error(line, fmt::format("block size '{}' is not a positive integer", text));
      }
      const int base = topology_.block_sizes.empty() ? size : topology_.block_sizes.front();
      const int ratio = size / base;
      if (size % base != 0 || (ratio & (ratio - 1)) != 0 ||
          (!topology_.block_sizes.empty() && size <= topology_.block_sizes.back())) {
        throw error(line,
                    fmt::format("block size {} is not the base {} times a rising power of 2", size, base));
      }
      topology_.block_sizes.push_back(size);
    }
    if (topology_.block_sizes.empty()) throw error(line, "BlockSizes lists no size");
  }

  void add_switch(std::string name, std::string_view hostlist, std::string_view children, int line) {
    if (switches_.contains(name)) throw error(line, fmt::format("switch '{}' defined twice", name));
    switches_.emplace(name, static_cast<int>(topology_.switches.size()));
    topology_.switches.push_back(
        {std::move(name), hostlist.empty() ? std::vector<int>{} : trays(hostlist, line), {}});
    pending_children_.push_back(
        {children.empty() ? std::vector<std::string>{} : expand(children, line), line});
  }

  SlurmTopology finish() {
    for (std::size_t s = 0; s < topology_.switches.size(); ++s) {
      for (const std::string& child : pending_children_[s].names) {
        const auto found = switches_.find(child);
        if (found == switches_.end())
          throw error(pending_children_[s].line, fmt::format("unknown switch '{}'", child));
        topology_.switches[s].children.push_back(found->second);
      }
    }
    return std::move(topology_);
  }

 private:
  struct Children {
    std::vector<std::string> names;
    int line;
  };
  std::string_view file_;
  NodeMap nodes_;
  SlurmTopology topology_;
  std::map<std::string, int> blocks_;    // name -> line
  std::map<std::string, int> switches_;  // name -> index
  std::vector<Children> pending_children_;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the topology file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// "key=value" tokens of a topology.conf line, split on blanks.
std::vector<std::pair<std::string_view, std::string_view>> conf_tokens(std::string_view line,
                                                                       const Builder& b, int number) {
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
                                  std::span<const std::string> node_names) {
  Builder builder(file, node_names);
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
    if (kind == "BlockSizes" && tokens.size() == 1) {
      builder.set_block_sizes(builder.expand(name, number), number);
    } else if (kind == "BlockName" && !name.empty()) {
      builder.add_block(std::string(name), nodes, number);
    } else if (kind == "SwitchName" && !name.empty()) {
      builder.add_switch(std::string(name), nodes, switches, number);
    } else {
      throw builder.error(number,
                          fmt::format("expected BlockName=, BlockSizes= or SwitchName=, got '{}'", line));
    }
  }
  return builder.finish();
}

namespace {

const YamlNode* member(const YamlNode& map, std::string_view key) {
  for (const auto& [name, value] : map.mapping) {
    if (name == key) return &value;
  }
  return nullptr;
}

void expect(const Builder& b, const YamlNode& node, YamlNode::Kind kind, std::string_view what) {
  if (node.kind != kind) throw b.error(node.line, fmt::format("{} expected", what));
}

void expect_keys(const Builder& b, const YamlNode& map, std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : map.mapping) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw b.error(value.key_line, fmt::format("unknown key '{}'", key));
    }
  }
}

std::string scalar(const Builder& b, const YamlNode* node, const YamlNode& parent, std::string_view key) {
  if (node == nullptr) throw b.error(parent.line, fmt::format("'{}' missing", key));
  expect(b, *node, YamlNode::Kind::kScalar, fmt::format("a value for '{}'", key));
  return node->scalar;
}

void read_block(Builder& b, const YamlNode& block) {
  expect(b, block, YamlNode::Kind::kMapping, "a mapping under 'block'");
  expect_keys(b, block, {"block_sizes", "blocks"});
  if (const YamlNode* sizes = member(block, "block_sizes")) {
    std::vector<std::string> values;
    if (sizes->kind == YamlNode::Kind::kScalar) values = b.expand(sizes->scalar, sizes->line);
    for (const YamlNode& size : sizes->sequence) values.push_back(scalar(b, &size, size, "block_sizes"));
    b.set_block_sizes(values, sizes->line);
  }
  const YamlNode* blocks = member(block, "blocks");
  if (blocks == nullptr) throw b.error(block.line, "'blocks' missing");
  expect(b, *blocks, YamlNode::Kind::kSequence, "a list under 'blocks'");
  for (const YamlNode& entry : blocks->sequence) {
    expect(b, entry, YamlNode::Kind::kMapping, "a block mapping");
    expect_keys(b, entry, {"block", "nodes"});
    const YamlNode* nodes = member(entry, "nodes");
    b.add_block(scalar(b, member(entry, "block"), entry, "block"),
                nodes ? scalar(b, nodes, entry, "nodes") : "", entry.line);
  }
}

void read_tree(Builder& b, const YamlNode& tree) {
  expect(b, tree, YamlNode::Kind::kMapping, "a mapping under 'tree'");
  expect_keys(b, tree, {"switches"});
  const YamlNode* switches = member(tree, "switches");
  if (switches == nullptr) throw b.error(tree.line, "'switches' missing");
  expect(b, *switches, YamlNode::Kind::kSequence, "a list under 'switches'");
  for (const YamlNode& entry : switches->sequence) {
    expect(b, entry, YamlNode::Kind::kMapping, "a switch mapping");
    expect_keys(b, entry, {"switch", "children", "nodes"});
    const YamlNode* nodes = member(entry, "nodes");
    const YamlNode* children = member(entry, "children");
    b.add_switch(scalar(b, member(entry, "switch"), entry, "switch"),
                 nodes ? scalar(b, nodes, entry, "nodes") : "",
                 children ? scalar(b, children, entry, "children") : "", entry.line);
  }
}

}  // namespace

SlurmTopology parse_topology_yaml(std::string_view text, std::string_view file,
                                  std::span<const std::string> node_names) {
  Builder builder(file, node_names);
  const YamlNode root = parse_yaml(text, file);
  expect(builder, root, YamlNode::Kind::kSequence, "a list of topologies");
  // The cluster default first, so its block and tree win over other topologies'.
  std::vector<const YamlNode*> order;
  for (const YamlNode& topology : root.sequence) {
    expect(builder, topology, YamlNode::Kind::kMapping, "a topology mapping");
    expect_keys(builder, topology, {"topology", "cluster_default", "block", "tree", "flat"});
    const YamlNode* is_default = member(topology, "cluster_default");
    const bool first =
        is_default && is_default->kind == YamlNode::Kind::kScalar && is_default->scalar == "true";
    order.insert(first ? order.begin() : order.end(), &topology);
  }
  bool have_block = false;
  bool have_tree = false;
  for (const YamlNode* topology : order) {
    if (const YamlNode* block = member(*topology, "block"); block && !have_block) {
      read_block(builder, *block);
      have_block = true;
    }
    if (const YamlNode* tree = member(*topology, "tree"); tree && !have_tree) {
      read_tree(builder, *tree);
      have_tree = true;
    }
  }
  return builder.finish();
}

SlurmTopology read_slurm_topology(const std::string& path, std::span<const std::string> node_names) {
  const std::string text = read_file(path);
  if (path.ends_with(".yaml") || path.ends_with(".yml")) return parse_topology_yaml(text, path, node_names);
  return parse_topology_conf(text, path, node_names);
}

}  // namespace nvlsim
