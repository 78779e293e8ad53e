#include "platforms/ib_plane_zone.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>

#include <stdexcept>
#include <utility>

namespace nvlsim {

namespace {

using simgrid::kernel::resource::StandardLinkImpl;

// Appends a link to a route as SimGrid's own zones do: the link, and its latency when asked for.
void take(std::vector<StandardLinkImpl*>& links, double* latency, StandardLinkImpl* link,
          double link_latency) {
  links.push_back(link);
  if (latency != nullptr) *latency += link_latency;
}

}  // namespace

IbPlaneZone::IbPlaneZone(const std::string& name, std::vector<int> pod_of_leaf)
    : NetZoneImpl(name), pod_of_leaf_(std::move(pod_of_leaf)) {}

IbPlaneZone::Pipe IbPlaneZone::pipe(const simgrid::s4u::SplitDuplexLink& link) {
  return {link.get_link_up()->get_impl(), link.get_link_down()->get_impl(), link.get_latency()};
}

void IbPlaneZone::add_leaf_uplink(const simgrid::s4u::SplitDuplexLink& link) {
  leaves_.push_back(pipe(link));
}

void IbPlaneZone::add_pod_uplink(const simgrid::s4u::SplitDuplexLink& link) {
  pods_.push_back(pipe(link));
}

void IbPlaneZone::add_nic(const simgrid::s4u::Host& nic, const simgrid::s4u::SplitDuplexLink& link,
                          int leaf) {
  const auto id = nic.get_netpoint()->id();
  if (id >= nics_.size()) nics_.resize(id + 1);
  nics_[id] = {pipe(link), leaf};
}

void IbPlaneZone::get_local_route(const simgrid::kernel::routing::NetPoint* src,
                                  const simgrid::kernel::routing::NetPoint* dst,
                                  simgrid::kernel::routing::Route* into, double* latency) {
  if (src->id() >= nics_.size() || dst->id() >= nics_.size() || nics_[src->id()].leaf < 0 ||
      nics_[dst->id()].leaf < 0)
    throw std::logic_error("nvlsim: InfiniBand route asked between points that are not NICs: " +
                           src->get_name() + ", " + dst->get_name());
  const Nic& from = nics_[src->id()];
  const Nic& to = nics_[dst->id()];
  auto& links = into->link_list_;
  take(links, latency, from.link.up, from.link.latency);
  if (from.leaf != to.leaf) {
    take(links, latency, leaves_[from.leaf].up, leaves_[from.leaf].latency);
    const int from_pod = pod_of_leaf_[from.leaf];
    const int to_pod = pod_of_leaf_[to.leaf];
    if (from_pod != to_pod) {
      take(links, latency, pods_[from_pod].up, pods_[from_pod].latency);
      take(links, latency, pods_[to_pod].down, pods_[to_pod].latency);
    }
    take(links, latency, leaves_[to.leaf].down, leaves_[to.leaf].latency);
  }
  take(links, latency, to.link.down, to.link.latency);
}

}  // namespace nvlsim
