#include "platforms/ib_plane_zone.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>

#include <stdexcept>
#include <utility>

namespace nvlsim {

IbPlaneZone::IbPlaneZone(const std::string& name, std::vector<int> pod_of_leaf)
    : NetZoneImpl(name), pod_of_leaf_(std::move(pod_of_leaf)) {}

IbPlaneZone::Pipe IbPlaneZone::pipe(const simgrid::s4u::SplitDuplexLink& link, bool solved) {
  return {link.get_link_up()->get_impl(), link.get_link_down()->get_impl(), link.get_latency(), solved};
}

void IbPlaneZone::add_leaf_uplink(const simgrid::s4u::SplitDuplexLink& link, bool can_saturate) {
  leaves_.push_back(pipe(link, can_saturate));
}

void IbPlaneZone::add_pod_uplink(const simgrid::s4u::SplitDuplexLink& link, bool can_saturate) {
  pods_.push_back(pipe(link, can_saturate));
}

void IbPlaneZone::add_nic(const simgrid::s4u::Host& nic, const simgrid::s4u::SplitDuplexLink& link,
                          int leaf) {
  const auto id = nic.get_netpoint()->id();
  if (id >= nics_.size()) nics_.resize(id + 1);
  nics_[id] = {pipe(link, true), leaf};
}

std::pair<const IbPlaneZone::Nic&, const IbPlaneZone::Nic&> IbPlaneZone::nics(
    const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst) const {
  const auto is_nic = [this](const simgrid::kernel::routing::NetPoint* p) {
    return p->get_englobing_zone() == this && p->id() < nics_.size() && nics_[p->id()].leaf >= 0;
  };
  if (!is_nic(src) || !is_nic(dst))
    throw std::logic_error("nvlsim: InfiniBand route asked between points that are not NICs: " +
                           src->get_name() + ", " + dst->get_name());
  return {nics_[src->id()], nics_[dst->id()]};
}

template <typename Take>
void IbPlaneZone::walk(const Nic& from, const Nic& to, Take take) const {
  take(from.link, true);
  if (from.leaf != to.leaf) {
    take(leaves_[from.leaf], true);
    const int from_pod = pod_of_leaf_[from.leaf];
    const int to_pod = pod_of_leaf_[to.leaf];
    if (from_pod != to_pod) {
      take(pods_[from_pod], true);
      take(pods_[to_pod], false);
    }
    take(leaves_[to.leaf], false);
  }
  take(to.link, false);
}

void IbPlaneZone::get_local_route(const simgrid::kernel::routing::NetPoint* src,
                                  const simgrid::kernel::routing::NetPoint* dst,
                                  simgrid::kernel::routing::Route* into, double* latency) {
  const auto [from, to] = nics(src, dst);
  // As SimGrid's own zones do: each link in route order, and its latency when asked for.
  walk(from, to, [&](const Pipe& pipe, bool going_up) {
    if (pipe.solved) into->link_list_.push_back(going_up ? pipe.up : pipe.down);
    if (latency != nullptr) *latency += pipe.latency;
  });
}

// Both NICs' links are always solved, so the route is those two exactly when nothing between is.
bool IbPlaneZone::nic_links_only(const simgrid::kernel::routing::NetPoint* src,
                                 const simgrid::kernel::routing::NetPoint* dst, double& latency) const {
  if (src == dst) throw std::logic_error("nvlsim: InfiniBand route asked from a NIC to itself");
  const auto [from, to] = nics(src, dst);
  int solved = 0;
  latency = 0;
  walk(from, to, [&](const Pipe& pipe, bool) {
    solved += pipe.solved ? 1 : 0;
    latency += pipe.latency;
  });
  return solved == 2;
}

}  // namespace nvlsim
