#pragma once
// The replay core's network on SimGrid: transfers between the platform's hosts, its clock, and the
// bandwidth of its NVLink port links.

#include <simgrid/s4u/Link.hpp>

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "platforms/platform_loader.hpp"
#include "sim/core/network.hpp"
#include "sim/flow_set.hpp"
#include "sim/route_memo.hpp"

namespace nvlsim {

class SimgridNetwork final : public Network {
 public:
  explicit SimgridNetwork(const LoadedPlatform& platform);

  double now() const override;
  void wait_until(double until) override;
  bool idle() const override { return flows_.empty(); }
  void launch_step(const std::vector<std::vector<int>>& group_gpus,
                   std::span<const Launch> launches) override;
  std::vector<Flow> take_finished() override { return flows_.take_finished(); }
  CancelledFlows cancel(std::size_t job) override { return flows_.cancel(job); }
  std::array<double, 2> take_carried() override { return flows_.take_carried(); }
  void set_nvlink_bandwidth(int gpu, double bandwidth) override;

 private:
  // One transfer as a timer or a SimGrid flow, NVLink ports and zones decide (InfiniBand: always a flow).
  void launch(const std::vector<std::vector<int>>& group_gpus, const PlannedFlow& planned, const Flow& flow);
  // The GPU's NVLink port links (out and in), found through its route to a GPU of the same domain.
  std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*> ports(int gpu);
  // The links of the GPU's NIC to its leaf (out and in), found through its route to another NIC.
  std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*> nic_ports(int gpu);
  // Whether the route between the two hosts is exactly the sender's port `out` then the receiver's port
  // `in`, links that belong to the job's GPUs alone, and its latency.
  bool route_is(simgrid::s4u::Host* from, simgrid::s4u::Host* to, const simgrid::s4u::Link* out,
                const simgrid::s4u::Link* in, double& latency);
  // The first link of the host's route to `peer` and the last of the way back.
  static std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*> own_links(simgrid::s4u::Host* self,
                                                                       simgrid::s4u::Host* peer);

  // The GPU's four port links, numbered for FlowTimers: four keys a GPU.
  enum class Port : std::size_t { nvlink_out, nvlink_in, nic_out, nic_in };
  static std::size_t port_key(int gpu, Port port) {
    return 4 * static_cast<std::size_t>(gpu) + static_cast<std::size_t>(port);
  }

  // Whether group g is the job's only group in its domain: else flows between zones share its ports.
  bool alone_in_domain(const std::vector<std::vector<int>>& group_gpus, std::size_t g) const;

  const LoadedPlatform& platform_;
  FlowSet flows_;
  bool timers_;  // the engine's settings keep FlowTimers exact
  // By GPU, found on first use ({nullptr, nullptr}: not yet): every NVLink launch asks for two.
  std::vector<std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*>> ports_;
  std::vector<std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*>> nic_ports_;  // by GPU, the same way
  // Scratch of launch_step: by launch, an InfiniBand transfer's two NIC ports when they are its whole route
  // (else null), and every such port of the step, sorted, to find those two transfers use.
  struct NicRoute {
    TimerLink out;  // link null: not a timer's route
    TimerLink in;
    double latency = 0;
  };
  std::vector<NicRoute> nic_routes_;
  RouteMemo routes_;
  std::vector<simgrid::s4u::Link*> step_ports_;
};

}  // namespace nvlsim
