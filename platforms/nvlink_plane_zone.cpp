#include "platforms/nvlink_plane_zone.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>

#include <stdexcept>

namespace nvlsim {

NvlinkPlaneZone::NvlinkPlaneZone(const std::string& name) : NetZoneImpl(name) {}

NvlinkPlaneZone::Pipe NvlinkPlaneZone::pipe(const simgrid::s4u::SplitDuplexLink& link) {
  return {link.get_link_up()->get_impl(), link.get_link_down()->get_impl(), link.get_latency()};
}

void NvlinkPlaneZone::add_zone_link(const simgrid::s4u::SplitDuplexLink& link) {
  zones_.push_back(pipe(link));
}

void NvlinkPlaneZone::add_gpu(const simgrid::s4u::Host& gpu, const simgrid::s4u::SplitDuplexLink& port,
                              int domain, int zone) {
  const auto id = gpu.get_netpoint()->id();
  if (id >= gpus_.size()) gpus_.resize(id + 1);
  gpus_[id] = {pipe(port), domain, zone};
}

void NvlinkPlaneZone::get_local_route(const simgrid::kernel::routing::NetPoint* src,
                                      const simgrid::kernel::routing::NetPoint* dst,
                                      simgrid::kernel::routing::Route* into, double* latency) {
  const auto known = [this](const simgrid::kernel::routing::NetPoint* p) {
    return p->id() < gpus_.size() && gpus_[p->id()].domain >= 0;
  };
  if (!known(src) || !known(dst) || gpus_[src->id()].domain != gpus_[dst->id()].domain)
    throw std::logic_error("nvlsim: NVLink route asked between points that are not GPUs of one domain: " +
                           src->get_name() + ", " + dst->get_name());
  const Gpu& from = gpus_[src->id()];
  const Gpu& to = gpus_[dst->id()];
  const auto take = [&](const Pipe& pipe, bool going_up) {
    into->link_list_.push_back(going_up ? pipe.up : pipe.down);
    if (latency != nullptr) *latency += pipe.latency;
  };
  take(from.port, true);
  if (from.zone != to.zone) {
    take(zones_[from.zone], true);
    take(zones_[to.zone], false);
  }
  take(to.port, false);
}

}  // namespace nvlsim
