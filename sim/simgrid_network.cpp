#include "sim/simgrid_network.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "platforms/ib_plane_zone.hpp"
#include "sim/flow_endpoints.hpp"

namespace nvlsim {
SimgridNetwork::SimgridNetwork(const LoadedPlatform& platform)
    : platform_(platform),
      timers_(FlowTimers::exact_for_engine()),
      ports_(platform.gpu_hosts.size()),
      nic_ports_(platform.nic_hosts.size()) {}

double SimgridNetwork::now() const {
  return simgrid::s4u::Engine::get_clock();
}

void SimgridNetwork::wait_until(double until) {
  if (!flows_.empty())
    flows_.wait_until(until);
  else
    simgrid::s4u::this_actor::sleep_until(until);
}

// One aggregated flow per planned flow (see flow_endpoints.hpp): a flow per NIC would load shared
// fabric links by volume, but costs SimGrid 3.32 O(flows) per completion (its detached comms live in
// a list), twenty times the run time on nvl72x64 (docs/model.md). A transfer whose route is links no
// other transfer can cross runs as a timer, which costs SimGrid nothing:
// - an NVLink flow crosses only its job's own ports (a GPU belongs to one job, a job sends one NVLink
//   flow per domain at a time, the switches are non-blocking), on every platform whose route between the
//   two GPUs is their two ports, unless the job's flows between zones of the domain share those ports;
// - an InfiniBand flow whose route, as the solver sees it, is its two NICs' ports (the fabric above them
//   cannot saturate, docs/model.md), unless another flow of the same step uses one of those ports. Only
//   on platforms whose InfiniBand plane nvlsim builds (format 2 and later), where each NIC has its own.
void SimgridNetwork::launch_step(const std::vector<std::vector<int>>& group_gpus,
                                 std::span<const Launch> launches) {
  const bool ib_timers = timers_ && platform_.ib_plane != nullptr;
  nic_routes_.assign(launches.size(), {});
  step_ports_.clear();
  for (std::size_t i = 0; i < launches.size() && ib_timers; ++i) {
    if (launches[i].planned.plane != Plane::infiniband) continue;
    const auto [from, to, src, dst] = flow_endpoints(platform_, group_gpus, launches[i].planned);
    double latency = 0;
    if (!platform_.ib_plane->nic_links_only(from->get_netpoint(), to->get_netpoint(), latency)) continue;
    const auto out = nic_ports(src).first;
    const auto in = nic_ports(dst).second;
    nic_routes_[i] = {{out, port_key(src, Port::nic_out)}, {in, port_key(dst, Port::nic_in)}, latency};
    step_ports_.push_back(out);
    step_ports_.push_back(in);
  }
  std::sort(step_ports_.begin(), step_ports_.end());
  const auto used_once = [&](simgrid::s4u::Link* link) {
    const auto [first, last] = std::equal_range(step_ports_.begin(), step_ports_.end(), link);
    return last - first == 1;
  };
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const NicRoute& nic = nic_routes_[i];
    if (nic.out.link != nullptr && used_once(nic.out.link) && used_once(nic.in.link)) {
      flows_.launch_timer({nic.out, nic.in}, nic.latency, launches[i].flow);
    } else {
      launch(group_gpus, launches[i].planned, launches[i].flow);
    }
  }
}

void SimgridNetwork::launch(const std::vector<std::vector<int>>& group_gpus, const PlannedFlow& planned,
                            const Flow& flow) {
  const auto [from, to, src, dst] = flow_endpoints(platform_, group_gpus, planned);
  if (timers_ && planned.plane == Plane::nvlink && !planned.between_zones() &&
      alone_in_domain(group_gpus, planned.src_group)) {
    const auto out = ports(src).first;
    const auto in = ports(dst).second;
    double latency = 0;
    if (route_is(from, to, out, in, latency)) {
      flows_.launch_timer({{{out, port_key(src, Port::nvlink_out)}, {in, port_key(dst, Port::nvlink_in)}}},
                          latency, flow);
      return;
    }
  }
  flows_.launch(from, to, static_cast<std::uint64_t>(flow.size), flow);
}

bool SimgridNetwork::route_is(simgrid::s4u::Host* from, simgrid::s4u::Host* to, const simgrid::s4u::Link* out,
                              const simgrid::s4u::Link* in, double& latency) {
  const RouteMemo::TwoLinks& route = routes_.route(from, to);
  latency = route.latency;
  return route.out != nullptr && route.out == out && route.in == in;
}

bool SimgridNetwork::alone_in_domain(const std::vector<std::vector<int>>& group_gpus, std::size_t g) const {
  const auto& shape = platform_.spec.shape;
  const int domain = shape.domain_of_gpu(group_gpus[g].front());
  return (g == 0 || shape.domain_of_gpu(group_gpus[g - 1].front()) != domain) &&
         (g + 1 == group_gpus.size() || shape.domain_of_gpu(group_gpus[g + 1].front()) != domain);
}

void SimgridNetwork::set_nvlink_bandwidth(int gpu, double bandwidth) {
  const auto [out, in] = ports(gpu);
  out->set_bandwidth(bandwidth);
  in->set_bandwidth(bandwidth);
  flows_.bandwidth_changed(out);
  flows_.bandwidth_changed(in);
}

std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*> SimgridNetwork::ports(int gpu) {
  if (ports_[gpu].first != nullptr) return ports_[gpu];
  const int per_domain = platform_.spec.shape.gpus_per_domain();
  const int domain_first = gpu / per_domain * per_domain;
  const int peer = gpu == domain_first ? gpu + 1 : domain_first;
  return ports_[gpu] = own_links(platform_.gpu_hosts.at(gpu), platform_.gpu_hosts.at(peer));
}

std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*> SimgridNetwork::nic_ports(int gpu) {
  if (nic_ports_[gpu].first != nullptr) return nic_ports_[gpu];
  return nic_ports_[gpu] = own_links(platform_.nic_hosts.at(gpu), platform_.nic_hosts.at(gpu == 0 ? 1 : 0));
}

std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*> SimgridNetwork::own_links(simgrid::s4u::Host* self,
                                                                              simgrid::s4u::Host* peer) {
  std::vector<simgrid::s4u::Link*> out, in;
  self->route_to(peer, out, nullptr);
  peer->route_to(self, in, nullptr);
  if (out.empty() || in.empty())
    throw std::logic_error("nvlsim: no route between " + self->get_name() + " and " + peer->get_name());
  return {out.front(), in.back()};
}

}  // namespace nvlsim
