#include "sim/link_sharing.hpp"

#include <algorithm>

namespace nvlsim {

namespace {

constexpr std::size_t npos = static_cast<std::size_t>(-1);

}  // namespace

int LinkSharing::link_id(const simgrid::s4u::Link* link) {
  const auto [it, added] = id_of_link_.try_emplace(link, static_cast<int>(flows_on_.size()));
  if (added) {
    flows_on_.emplace_back();
    link_marked_.push_back(0);
  }
  return it->second;
}

void LinkSharing::add(std::size_t flow, const std::vector<simgrid::s4u::Link*>& links) {
  if (flow >= links_of_.size()) {
    links_of_.resize(flow + 1);
    marked_at_.resize(flow + 1, npos);
  }
  std::vector<int>& mine = links_of_[flow];
  mine.clear();
  for (const simgrid::s4u::Link* link : links) {
    const int id = link_id(link);
    mine.push_back(id);
    flows_on_[id].push_back(flow);
  }
}

void LinkSharing::remove(std::size_t flow) {
  if (const std::size_t at = marked_at_[flow]; at != npos) {
    marked_at_[marked_.back()] = at;
    marked_[at] = marked_.back();
    marked_.pop_back();
    marked_at_[flow] = npos;
  }
  for (const int link : links_of_[flow]) {
    std::vector<std::size_t>& on = flows_on_[link];
    on.erase(std::find(on.begin(), on.end(), flow));
  }
  for (const int link : links_of_[flow]) spread(link);
  links_of_[flow].clear();
}

void LinkSharing::mark_flow(std::size_t flow) {
  if (marked_at_[flow] != npos) return;
  marked_at_[flow] = marked_.size();
  marked_.push_back(flow);
  for (const int link : links_of_[flow]) spread(link);
}

void LinkSharing::mark_link(const simgrid::s4u::Link* link) {
  if (const auto it = id_of_link_.find(link); it != id_of_link_.end()) spread(it->second);
}

// A marked link's transfers are all marked and so is everything connected to them: a transfer added to
// it later is marked by its own start, so the walk can stop at marked links.
void LinkSharing::spread(int link) {
  push_link(link);
  while (!stack_.empty()) {
    const int l = stack_.back();
    stack_.pop_back();
    for (const std::size_t flow : flows_on_[l]) {
      if (marked_at_[flow] != npos) continue;
      marked_at_[flow] = marked_.size();
      marked_.push_back(flow);
      for (const int next : links_of_[flow]) push_link(next);
    }
  }
}

void LinkSharing::push_link(int link) {
  if (link_marked_[link]) return;
  link_marked_[link] = 1;
  marked_links_.push_back(link);
  stack_.push_back(link);
}

void LinkSharing::clear_marks() {
  for (const std::size_t flow : marked_) marked_at_[flow] = npos;
  marked_.clear();
  for (const int link : marked_links_) link_marked_[link] = 0;
  marked_links_.clear();
}

}  // namespace nvlsim
