#include "sim/simgrid_network.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <stdexcept>
#include <string>

#include "sim/flow_endpoints.hpp"

namespace nvlsim {

SimgridNetwork::SimgridNetwork(const LoadedPlatform& platform)
    : platform_(platform), timers_(FlowTimers::exact_for_engine()), ports_(platform.gpu_hosts.size()) {}

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
// a list), twenty times the run time on nvl72x64 (docs/model.md). An NVLink flow crosses only its job's
// own ports (a GPU belongs to one job, a job sends one NVLink flow per domain at a time, the switches
// are non-blocking), so no other transfer can move its rate: it runs as a timer, which costs SimGrid
// nothing, on every platform whose route between the two GPUs is their two ports, unless the job's flows
// between zones of the domain share those ports.
void SimgridNetwork::launch(const std::vector<std::vector<int>>& group_gpus, const PlannedFlow& planned,
                            const Flow& flow) {
  const auto [from, to] = flow_endpoints(platform_, group_gpus, planned);
  if (timers_ && planned.plane == Plane::nvlink && !planned.between_zones() &&
      alone_in_domain(group_gpus, planned.src_group)) {
    const auto& gpus = group_gpus[planned.src_group];
    route_.clear();
    double latency = 0;
    from->route_to(to, route_, &latency);
    if (private_ports(route_, gpus[0], gpus[1])) {
      flows_.launch_timer(route_, latency, flow);
      return;
    }
  }
  flows_.launch(from, to, static_cast<std::uint64_t>(flow.size), flow);
}

bool SimgridNetwork::alone_in_domain(const std::vector<std::vector<int>>& group_gpus, std::size_t g) const {
  const auto& shape = platform_.spec.shape;
  const int domain = shape.domain_of_gpu(group_gpus[g].front());
  return (g == 0 || shape.domain_of_gpu(group_gpus[g - 1].front()) != domain) &&
         (g + 1 == group_gpus.size() || shape.domain_of_gpu(group_gpus[g + 1].front()) != domain);
}

bool SimgridNetwork::private_ports(const std::vector<simgrid::s4u::Link*>& route, int from_gpu, int to_gpu) {
  return route.size() == 2 && route[0] == ports(from_gpu).first && route[1] == ports(to_gpu).second;
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
  simgrid::s4u::Host* self = platform_.gpu_hosts.at(gpu);
  simgrid::s4u::Host* other = platform_.gpu_hosts.at(peer);
  std::vector<simgrid::s4u::Link*> out, in;
  self->route_to(other, out, nullptr);
  other->route_to(self, in, nullptr);
  if (out.empty() || in.empty())
    throw std::logic_error("nvlsim: no NVLink route between GPUs " + std::to_string(gpu) + " and " +
                           std::to_string(peer));
  return ports_[gpu] = {out.front(), in.back()};
}

}  // namespace nvlsim
