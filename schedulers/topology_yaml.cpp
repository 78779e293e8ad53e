// topology.yaml (Slurm 25.05): a list of topologies, each with a block and/or a tree, read by yaml-cpp.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "schedulers/slurm_topology.hpp"
#include "schedulers/topology_builder.hpp"
#include "schedulers/yaml_documents.hpp"

namespace nvlsim {
namespace {

// A topology.yaml node with the line and field its errors name.
struct Field {
  YAML::Node node;
  Where at;
};

// The members of a mapping by key, each at its key's line (yaml-cpp marks a null value at the next
// token and an alias at its anchor). Throws for a node that is no mapping, a key that is no string, a
// repeated or an unknown key.
std::map<std::string, Field> members(const TopologyBuilder& b, const Field& map,
                                     std::string_view what, std::initializer_list<std::string_view> known) {
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

std::vector<Field> items(const TopologyBuilder& b, const Field& list, std::string_view what) {
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

const Field& required(const TopologyBuilder& b, const std::map<std::string, Field>& map,
                      const Field& parent, const std::string& key) {
  const Field* field = find(map, key);
  if (field == nullptr) throw b.error(parent.at, fmt::format("'{}' missing", key));
  return *field;
}

// A scalar's text; a null value (`key:` alone, `~`) reads as empty when `empty_ok`.
std::string scalar(const TopologyBuilder& b, const Field& field, bool empty_ok = false) {
  if (field.node.IsScalar() && (empty_ok || !field.node.Scalar().empty())) return field.node.Scalar();
  if (field.node.IsNull() && empty_ok) return {};
  throw b.error(field.at, field.node.IsScalar() || field.node.IsNull() ? "expected a non-empty string"
                                                                       : "expected a string");
}

std::string optional_scalar(const TopologyBuilder& b, const std::map<std::string, Field>& map,
                            const std::string& key) {
  const Field* field = find(map, key);
  return field ? scalar(b, *field, true) : std::string();
}

bool boolean(const TopologyBuilder& b, const Field& field) {
  if (field.node.IsNull()) return false;
  bool value = false;
  if (!field.node.IsScalar() || !YAML::convert<bool>::decode(field.node, value)) {
    throw b.error(field.at, "expected true or false");
  }
  return value;
}

void read_block(TopologyBuilder& b, const Field& block) {
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

void read_tree(TopologyBuilder& b, const Field& tree) {
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
  TopologyBuilder builder(file, node_names, trays);
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

}  // namespace nvlsim
