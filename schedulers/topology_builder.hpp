#pragma once
// What topology.conf and topology.yaml share once their syntax is read: node names resolved to trays,
// each node in at most one block and one leaf switch, switch children resolved and free of cycles, and
// errors at FILE:LINE. Private to the two readers (slurm_topology.hpp is the interface).

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/input_error.hpp"
#include "schedulers/slurm_topology.hpp"

namespace nvlsim {

// Where a value sits: its line and, in topology.yaml, its field ("block.blocks[1].nodes").
struct Where {
  int line = 0;
  std::string field;  // empty in topology.conf
};

// Node names to trays: the given list, or first appearance in the file, at most `limit` of them.
class NodeMap {
 public:
  NodeMap(std::span<const std::string> names, int limit);
  bool fixed() const { return fixed_; }
  int limit() const { return limit_; }
  // nullopt for a name missing from a fixed list or past the limit.
  std::optional<int> tray(const std::string& name);

 private:
  bool fixed_;
  int limit_;
  std::unordered_map<std::string, int> trays_;
};

// Builds one topology from the entries a reader finds, in file order; switches name children that are
// resolved by finish(), after all are read.
class TopologyBuilder {
 public:
  TopologyBuilder(std::string_view file, std::span<const std::string> names, int trays)
      : file_(file), nodes_(names, trays) {}

  InputError error(const Where& at, std::string_view what) const;
  InputError error(int line, std::string_view what) const { return error(Where{line, {}}, what); }

  // A hostlist's names; throws past the file's total (kMaxListed in the source).
  std::vector<std::string> expand(std::string_view hostlist, const Where& at);

  void add_block(std::string name, const Where& name_at, std::string_view hostlist, const Where& nodes_at);
  void set_block_sizes(const std::vector<std::string>& sizes, const Where& at);
  void add_switch(std::string name, const Where& name_at, std::string_view hostlist, const Where& nodes_at,
                  std::string_view children, const Where& children_at);

  SlurmTopology finish();

 private:
  enum class Group { block, leaf };
  std::vector<int> trays(std::string_view hostlist, const Where& at, Group group, const std::string& owner);
  void refuse_cycles() const;

  struct Children {
    std::vector<std::string> names;
    Where at;
  };
  struct Owner {
    int index;  // into topology_.blocks or topology_.switches
    int line;
  };
  std::string_view file_;
  NodeMap nodes_;
  SlurmTopology topology_;
  std::map<std::string, int> blocks_;    // name -> line
  std::map<std::string, int> switches_;  // name -> index
  std::vector<Children> pending_children_;
  std::unordered_map<int, Owner> block_owners_;   // tray -> its block
  std::unordered_map<int, Owner> switch_owners_;  // tray -> its leaf switch
  std::size_t listed_ = 0;                        // names expanded so far
};

}  // namespace nvlsim
