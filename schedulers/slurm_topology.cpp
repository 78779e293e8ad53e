#include "schedulers/slurm_topology.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "models/input_error.hpp"
#include "models/read_number.hpp"
#include "schedulers/hostlist.hpp"
#include "schedulers/yaml_documents.hpp"

namespace nvlsim {
namespace {

// Names a whole topology file may list, counting repeats: 2^20, far beyond any machine's 2^18 trays listed
// at a few levels.
constexpr std::size_t kMaxListed = std::size_t{1} << 20;

// Node names to trays: the given list, or first appearance in the file, at most `limit` of them.
class NodeMap {
 public:
  NodeMap(std::span<const std::string> names, int limit) : fixed_(!names.empty()), limit_(limit) {
    for (std::size_t i = 0; i < names.size(); ++i) trays_.emplace(names[i], static_cast<int>(i));
  }
  bool fixed() const { return fixed_; }
  int limit() const { return limit_; }
  // nullopt for a name missing from a fixed list or past the limit.
  std::optional<int> tray(const std::string& name) {
    const auto found = trays_.find(name);
    if (found != trays_.end()) return found->second;
    if (fixed_ || static_cast<int>(trays_.size()) >= limit_) return std::nullopt;
    const int tray = static_cast<int>(trays_.size());
    trays_.emplace(name, tray);
    return tray;
  }

 private:
  bool fixed_;
  int limit_;
  std::unordered_map<std::string, int> trays_;
};

// Where a value sits: its line and, in topology.yaml, its field ("block.blocks[1].nodes").
struct Where {
  int line = 0;
  std::string field;  // empty in topology.conf
};

// Reads one topology: errors carry FILE:LINE; switches name children resolved after all are read.
class Builder {
 public:
  Builder(std::string_view file, std::span<const std::string> names, int trays)
      : file_(file), nodes_(names, trays) {}

  InputError error(const Where& at, std::string_view what) const {
    if (at.field.empty()) return InputError(fmt::format("{}:{}: {}", file_, at.line, what));
    return InputError(fmt::format("{}:{}: {}: {}", file_, at.line, at.field, what));
  }
  InputError error(int line, std::string_view what) const { return error(Where{line, {}}, what); }

  // Each hostlist is bounded (hostlist.hpp); the count over the whole file bounds the memory of many lines
  // that each name the most nodes a hostlist may.
  std::vector<std::string> expand(std::string_view hostlist, const Where& at) {
    std::vector<std::string> names;
    try {
      names = expand_hostlist(hostlist);
    } catch (const std::invalid_argument& e) {
      throw error(at, e.what());
    }
    listed_ += names.size();
    if (listed_ > kMaxListed)
      throw error(at, fmt::format("the file names more than {} nodes and switches in all", kMaxListed));
    return names;
  }

  // A node belongs to at most one block and at most one leaf switch; the owners maps (tray to the block's
  // or switch's index and line) make a second listing name both.
  enum class Group { block, leaf };
  std::vector<int> trays(std::string_view hostlist, const Where& at, Group group, const std::string& owner) {
    const bool block = group == Group::block;
    auto& owners = block ? block_owners_ : switch_owners_;
    const int index = static_cast<int>(block ? topology_.blocks.size() : topology_.switches.size());
    std::vector<int> result;
    for (const std::string& name : expand(hostlist, at)) {
      const std::optional<int> tray = nodes_.tray(name);
      if (!tray && nodes_.fixed()) throw error(at, fmt::format("unknown node '{}'", name));
      if (!tray) {
        throw error(at, fmt::format("node '{}' is distinct node number {} in the file, more than the "
                                    "platform's {} trays (it names no nodes, so they map to trays in order "
                                    "of first appearance)",
                                    name, nodes_.limit() + 1, nodes_.limit()));
      }
      const auto [first, added] = owners.try_emplace(*tray, Owner{index, at.line});
      if (!added) {
        const int other = first->second.index;
        const std::string& earlier = other == index ? owner
                                     : block        ? topology_.blocks[other].name
                                                    : topology_.switches[other].name;
        const char* kind = block ? "block" : "switch";
        throw error(at, fmt::format("node '{}' is in {} '{}' (line {}) and again in {} '{}'", name, kind,
                                    earlier, first->second.line, kind, owner));
      }
      result.push_back(*tray);
    }
    return result;
  }

  void add_block(std::string name, const Where& name_at, std::string_view hostlist, const Where& nodes_at) {
    if (blocks_.contains(name)) throw error(name_at, fmt::format("block '{}' defined twice", name));
    blocks_.emplace(name, name_at.line);
    topology_.blocks.push_back(
        {name, hostlist.empty() ? std::vector<int>{} : trays(hostlist, nodes_at, Group::block, name)});
  }

  void set_block_sizes(const std::vector<std::string>& sizes, const Where& at) {
    if (!topology_.block_sizes.empty()) throw error(at, "BlockSizes given twice");
    for (const std::string& text : sizes) {
      const auto number = read_number<int>(text);
      if (!number || number.value < 1)
        throw error(at, fmt::format("block size '{}' is not a positive integer", text));
      const int size = number.value;
      const int base = topology_.block_sizes.empty() ? size : topology_.block_sizes.front();
      const int ratio = size / base;
      if (size % base != 0 || (ratio & (ratio - 1)) != 0 ||
          (!topology_.block_sizes.empty() && size <= topology_.block_sizes.back())) {
        throw error(at,
                    fmt::format("block size {} is not the base {} times a rising power of 2", size, base));
      }
      topology_.block_sizes.push_back(size);
    }
    if (topology_.block_sizes.empty()) throw error(at, "BlockSizes lists no size");
  }

  void add_switch(std::string name, const Where& name_at, std::string_view hostlist, const Where& nodes_at,
                  std::string_view children, const Where& children_at) {
    if (switches_.contains(name)) throw error(name_at, fmt::format("switch '{}' defined twice", name));
    switches_.emplace(name, static_cast<int>(topology_.switches.size()));
    topology_.switches.push_back(
        {name, hostlist.empty() ? std::vector<int>{} : trays(hostlist, nodes_at, Group::leaf, name), {}});
    pending_children_.push_back(
        {children.empty() ? std::vector<std::string>{} : expand(children, children_at), children_at});
  }

  SlurmTopology finish() {
    for (std::size_t s = 0; s < topology_.switches.size(); ++s) {
      for (const std::string& child : pending_children_[s].names) {
        const auto found = switches_.find(child);
        if (found == switches_.end())
          throw error(pending_children_[s].at, fmt::format("unknown switch '{}'", child));
        topology_.switches[s].children.push_back(found->second);
      }
    }
    refuse_cycles();
    return std::move(topology_);
  }

 private:
  // Switches= must make trees: a cycle has no top switch. Depth-first with an explicit stack (any depth);
  // the error is at the line whose Switches= closes the cycle.
  void refuse_cycles() const {
    const std::vector<SlurmSwitch>& all = topology_.switches;
    enum class Seen : char { no, on_path, done };
    std::vector<Seen> seen(all.size(), Seen::no);
    std::vector<std::pair<std::size_t, std::size_t>> path;  // a switch and its next child to visit
    for (std::size_t root = 0; root < all.size(); ++root) {
      if (seen[root] != Seen::no) continue;
      seen[root] = Seen::on_path;
      path.emplace_back(root, 0);
      while (!path.empty()) {
        const auto [s, next] = path.back();
        if (next == all[s].children.size()) {
          seen[s] = Seen::done;
          path.pop_back();
          continue;
        }
        ++path.back().second;
        const auto child = static_cast<std::size_t>(all[s].children[next]);
        if (seen[child] == Seen::on_path) {
          throw error(
              pending_children_[s].at,
              fmt::format("switch '{}' names '{}' below it, which is '{}' itself or above it: the switches "
                          "form a cycle",
                          all[s].name, all[child].name, all[s].name));
        }
        if (seen[child] == Seen::no) {
          seen[child] = Seen::on_path;
          path.emplace_back(child, 0);
        }
      }
    }
  }

  struct Children {
    std::vector<std::string> names;
    Where at;
  };
  std::string_view file_;
  NodeMap nodes_;
  SlurmTopology topology_;
  std::map<std::string, int> blocks_;    // name -> line
  std::map<std::string, int> switches_;  // name -> index
  std::vector<Children> pending_children_;
  struct Owner {
    int index;  // into topology_.blocks or topology_.switches
    int line;
  };
  std::unordered_map<int, Owner> block_owners_;   // tray -> its block
  std::unordered_map<int, Owner> switch_owners_;  // tray -> its leaf switch
  std::size_t listed_ = 0;                        // names expanded so far
};

// Real topology files are a few kilobytes; the cap keeps a wrong path (a trace, a disk image) out of memory.
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{16} << 20;

std::string read_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw InputError(fmt::format("{}: is a folder, expected a topology file", path));
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (!error && size > kMaxFileBytes)
    throw InputError(fmt::format("{}: {} bytes, more than the {} MiB a topology file may have", path, size,
                                 kMaxFileBytes >> 20));
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
                                  std::span<const std::string> node_names, int trays) {
  Builder builder(file, node_names, trays);
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

namespace {

// A topology.yaml node with the line and field its errors name.
struct Field {
  YAML::Node node;
  Where at;
};

// The members of a mapping by key, each at its key's line (yaml-cpp marks a null value at the next
// token and an alias at its anchor). Throws for a node that is no mapping, a key that is no string, a
// repeated or an unknown key.
std::map<std::string, Field> members(const Builder& b, const Field& map, std::string_view what,
                                     std::initializer_list<std::string_view> known) {
  if (!map.node.IsMap()) throw b.error(map.at, fmt::format("expected {}", what));
  std::map<std::string, Field> result;
  for (const auto& pair : map.node) {
    const Where key_at{pair.first.Mark().line + 1, map.at.field};
    if (!pair.first.IsScalar()) throw b.error(key_at, "expected a string key");
    const std::string& key = pair.first.Scalar();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw b.error(key_at, fmt::format("unknown key '{}' (known: {})", key, fmt::join(known, ", ")));
    }
    const Field value{pair.second, {key_at.line, map.at.field.empty() ? key : map.at.field + "." + key}};
    if (!result.emplace(key, value).second) throw b.error(key_at, fmt::format("key '{}' repeated", key));
  }
  return result;
}

std::vector<Field> items(const Builder& b, const Field& list, std::string_view what) {
  if (!list.node.IsSequence()) throw b.error(list.at, fmt::format("expected {}", what));
  std::vector<Field> result;
  for (const YAML::Node& item : list.node) {
    result.push_back({item, {item.Mark().line + 1, fmt::format("{}[{}]", list.at.field, result.size())}});
  }
  return result;
}

const Field* find(const std::map<std::string, Field>& map, const std::string& key) {
  const auto found = map.find(key);
  return found == map.end() ? nullptr : &found->second;
}

const Field& required(const Builder& b, const std::map<std::string, Field>& map, const Field& parent,
                      const std::string& key) {
  const Field* field = find(map, key);
  if (field == nullptr) throw b.error(parent.at, fmt::format("'{}' missing", key));
  return *field;
}

// A scalar's text; a null value (`key:` alone, `~`) reads as empty when `empty_ok`.
std::string scalar(const Builder& b, const Field& field, bool empty_ok = false) {
  if (field.node.IsScalar() && (empty_ok || !field.node.Scalar().empty())) return field.node.Scalar();
  if (field.node.IsNull() && empty_ok) return {};
  throw b.error(field.at, field.node.IsScalar() || field.node.IsNull() ? "expected a non-empty string"
                                                                       : "expected a string");
}

std::string optional_scalar(const Builder& b, const std::map<std::string, Field>& map,
                            const std::string& key) {
  const Field* field = find(map, key);
  return field ? scalar(b, *field, true) : std::string();
}

bool boolean(const Builder& b, const Field& field) {
  if (field.node.IsNull()) return false;
  bool value = false;
  if (!field.node.IsScalar() || !YAML::convert<bool>::decode(field.node, value)) {
    throw b.error(field.at, "expected true or false");
  }
  return value;
}

void read_block(Builder& b, const Field& block) {
  const auto keys = members(b, block, "a mapping with 'block_sizes' and 'blocks'", {"block_sizes", "blocks"});
  if (const Field* sizes = find(keys, "block_sizes")) {
    std::vector<std::string> values;
    if (sizes->node.IsSequence()) {
      for (const Field& size : items(b, *sizes, "a list of sizes")) values.push_back(scalar(b, size));
    } else {
      values = b.expand(scalar(b, *sizes, true), sizes->at);  // "18,36" as in topology.conf
    }
    b.set_block_sizes(values, sizes->at);
  }
  for (const Field& entry : items(b, required(b, keys, block, "blocks"), "a list of blocks")) {
    const auto fields = members(b, entry, "a block mapping", {"block", "nodes"});
    const Field& name = required(b, fields, entry, "block");
    const Field* nodes = find(fields, "nodes");
    b.add_block(scalar(b, name), name.at, optional_scalar(b, fields, "nodes"), nodes ? nodes->at : entry.at);
  }
}

void read_tree(Builder& b, const Field& tree) {
  const auto keys = members(b, tree, "a mapping with 'switches'", {"switches"});
  for (const Field& entry : items(b, required(b, keys, tree, "switches"), "a list of switches")) {
    const auto fields = members(b, entry, "a switch mapping", {"switch", "children", "nodes"});
    const Field& name = required(b, fields, entry, "switch");
    const Field* nodes = find(fields, "nodes");
    const Field* children = find(fields, "children");
    b.add_switch(scalar(b, name), name.at, optional_scalar(b, fields, "nodes"), nodes ? nodes->at : entry.at,
                 optional_scalar(b, fields, "children"), children ? children->at : entry.at);
  }
}

}  // namespace

SlurmTopology parse_topology_yaml(std::string_view text, std::string_view file,
                                  std::span<const std::string> node_names, int trays) {
  Builder builder(file, node_names, trays);
  std::vector<YAML::Node> documents;
  try {
    documents = load_yaml_documents(text);
  } catch (const YamlSyntaxError& e) {
    if (e.line() == 0) throw InputError(fmt::format("{}: {}", file, e.what()));
    throw builder.error(e.line(), e.what());
  }
  if (documents.size() > 1) throw builder.error(documents[1].Mark().line + 1, "expected one YAML document");
  if (documents.empty() || documents.front().IsNull()) return builder.finish();  // nothing but comments
  const Field root{documents.front(), {documents.front().Mark().line + 1, {}}};
  // The cluster default first, so its block and tree win over other topologies'.
  std::vector<std::map<std::string, Field>> order;
  std::map<std::string, int> names;  // topology name -> line
  int default_line = 0;              // of the cluster_default topology
  for (Field topology : items(builder, root, "a list of topologies")) {
    topology.at.field.clear();  // fields are named from their topology down: "block.blocks[0].nodes"
    auto keys = members(builder, topology, "a topology mapping",
                        {"topology", "cluster_default", "block", "tree", "flat"});
    if (const Field* name = find(keys, "topology")) {
      const auto [earlier, added] = names.try_emplace(scalar(builder, *name), name->at.line);
      if (!added)
        throw builder.error(
            name->at, fmt::format("topology '{}' is already on line {}", earlier->first, earlier->second));
    }
    if (const Field* flat = find(keys, "flat")) boolean(builder, *flat);
    const Field* is_default = find(keys, "cluster_default");
    const bool first = is_default && boolean(builder, *is_default);
    if (first && default_line != 0)
      throw builder.error(
          is_default->at,
          fmt::format("a second cluster_default topology (the first is on line {})", default_line));
    if (first) default_line = is_default->at.line;
    order.insert(first ? order.begin() : order.end(), std::move(keys));
  }
  bool have_block = false;
  bool have_tree = false;
  for (const auto& topology : order) {
    if (const Field* block = find(topology, "block"); block && !have_block) {
      read_block(builder, *block);
      have_block = true;
    }
    if (const Field* tree = find(topology, "tree"); tree && !have_tree) {
      read_tree(builder, *tree);
      have_tree = true;
    }
  }
  return builder.finish();
}

SlurmTopology read_slurm_topology(const std::string& path, std::span<const std::string> node_names,
                                  int trays) {
  const std::string text = read_file(path);
  const bool yaml = path.ends_with(".yaml") || path.ends_with(".yml");
  SlurmTopology topology = yaml ? parse_topology_yaml(text, path, node_names, trays)
                                : parse_topology_conf(text, path, node_names, trays);
  // A file given with --topology that describes nothing would silently leave the policies without one.
  if (topology.blocks.empty() && topology.switches.empty())
    throw InputError(fmt::format("{}: describes no block and no switch", path));
  return topology;
}

}  // namespace nvlsim
