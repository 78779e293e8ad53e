#include "schedulers/topology_builder.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

#include "models/read_number.hpp"
#include "schedulers/hostlist.hpp"

namespace nvlsim {
namespace {

// Names a whole topology file may list, counting repeats: 2^20, far beyond any machine's 2^18 trays listed
// at a few levels.
constexpr std::size_t kMaxListed = std::size_t{1} << 20;

}  // namespace

NodeMap::NodeMap(std::span<const std::string> names, int limit) : fixed_(!names.empty()), limit_(limit) {
  for (std::size_t i = 0; i < names.size(); ++i) trays_.emplace(names[i], static_cast<int>(i));
}

std::optional<int> NodeMap::tray(const std::string& name) {
  const auto found = trays_.find(name);
  if (found != trays_.end()) return found->second;
  if (fixed_ || static_cast<int>(trays_.size()) >= limit_) return std::nullopt;
  const int tray = static_cast<int>(trays_.size());
  trays_.emplace(name, tray);
  return tray;
}

InputError TopologyBuilder::error(const Where& at, std::string_view what) const {
  if (at.field.empty()) return InputError(fmt::format("{}:{}: {}", file_, at.line, what));
  return InputError(fmt::format("{}:{}: {}: {}", file_, at.line, at.field, what));
}

// Each hostlist is bounded (hostlist.hpp); the count over the whole file bounds the memory of many lines
// that each name the most nodes a hostlist may.
std::vector<std::string> TopologyBuilder::expand(std::string_view hostlist, const Where& at) {
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
std::vector<int> TopologyBuilder::trays(std::string_view hostlist, const Where& at, Group group,
                                        const std::string& owner) {
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

void TopologyBuilder::add_block(std::string name, const Where& name_at, std::string_view hostlist,
                                const Where& nodes_at) {
  if (blocks_.contains(name)) throw error(name_at, fmt::format("block '{}' defined twice", name));
  blocks_.emplace(name, name_at.line);
  topology_.blocks.push_back(
      {name, hostlist.empty() ? std::vector<int>{} : trays(hostlist, nodes_at, Group::block, name)});
}

void TopologyBuilder::set_block_sizes(const std::vector<std::string>& sizes, const Where& at) {
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
      throw error(at, fmt::format("block size {} is not the base {} times a rising power of 2", size, base));
    }
    topology_.block_sizes.push_back(size);
  }
  if (topology_.block_sizes.empty()) throw error(at, "BlockSizes lists no size");
}

void TopologyBuilder::add_switch(std::string name, const Where& name_at, std::string_view hostlist,
                                 const Where& nodes_at, std::string_view children, const Where& children_at) {
  if (switches_.contains(name)) throw error(name_at, fmt::format("switch '{}' defined twice", name));
  switches_.emplace(name, static_cast<int>(topology_.switches.size()));
  topology_.switches.push_back(
      {name, hostlist.empty() ? std::vector<int>{} : trays(hostlist, nodes_at, Group::leaf, name), {}});
  pending_children_.push_back(
      {children.empty() ? std::vector<std::string>{} : expand(children, children_at), children_at});
}

SlurmTopology TopologyBuilder::finish() {
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

// Switches= must make trees: a cycle has no top switch. Depth-first with an explicit stack (any depth);
// the error is at the line whose Switches= closes the cycle.
void TopologyBuilder::refuse_cycles() const {
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
        throw error(pending_children_[s].at,
                    fmt::format("switch '{}' names '{}' below it, which is '{}' itself or above it: the "
                                "switches form a cycle",
                                all[s].name, all[child].name, all[s].name));
      }
      if (seen[child] == Seen::no) {
        seen[child] = Seen::on_path;
        path.emplace_back(child, 0);
      }
    }
  }
}

}  // namespace nvlsim
