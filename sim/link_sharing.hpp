#pragma once
// Which transfers share which links: the connected components of SimGrid's max-min system, kept beside it
// so that a change names the transfers whose rate it may move without visiting every transfer.

#include <simgrid/s4u/Link.hpp>

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace nvlsim {

// SimGrid re-solves, at the next instant, every transfer connected to a changed link through links that
// transfers share (lmm::System::update_modified_cnst_set), and only those: their rates may move, every
// other rate stays. Marking, here, follows the same links, so a marked set holds every transfer whose rate
// the changes since the last clear_marks() may have moved. Transfers are dense ids, reused after remove().
class LinkSharing {
 public:
  // Registers transfer `flow` on `links` (its route as SimGrid's solver sees it).
  void add(std::size_t flow, const std::vector<simgrid::s4u::Link*>& links);
  // Forgets the transfer, and marks what shared its links: their rates move when it leaves.
  void remove(std::size_t flow);
  // Marks the transfer and everything connected to it.
  void mark_flow(std::size_t flow);
  // Marks everything connected to the link (its bandwidth changed).
  void mark_link(const simgrid::s4u::Link* link);

  // The transfers marked since the last clear_marks(), each once.
  const std::vector<std::size_t>& marked() const { return marked_; }
  void clear_marks();

 private:
  int link_id(const simgrid::s4u::Link* link);
  // Marks the link and, through the transfers on it, everything connected to it.
  void spread(int link);
  void push_link(int link);

  std::unordered_map<const simgrid::s4u::Link*, int> id_of_link_;
  std::vector<std::vector<std::size_t>> flows_on_;  // by link id
  std::vector<std::uint8_t> link_marked_;
  std::vector<int> marked_links_;
  std::vector<std::vector<int>> links_of_;  // by transfer
  std::vector<std::size_t> marked_at_;      // by transfer: index in marked_, or npos
  std::vector<std::size_t> marked_;
  std::vector<int> stack_;  // links still to visit while marking
};

}  // namespace nvlsim
