#pragma once
// The replay core's network on SimGrid: transfers between the platform's hosts, its clock, and the
// bandwidth of its NVLink port links.

#include <simgrid/s4u/Link.hpp>

#include <utility>
#include <vector>

#include "platforms/platform_loader.hpp"
#include "sim/core/network.hpp"
#include "sim/flow_set.hpp"

namespace nvlsim {

class SimgridNetwork final : public Network {
 public:
  explicit SimgridNetwork(const LoadedPlatform& platform);

  double now() const override;
  void wait_until(double until) override;
  bool idle() const override { return flows_.empty(); }
  void launch(const std::vector<std::vector<int>>& group_gpus, const PlannedFlow& planned,
              const Flow& flow) override;
  std::vector<Flow> take_finished() override { return flows_.take_finished(); }
  CancelledFlows cancel(std::size_t job) override { return flows_.cancel(job); }
  std::array<double, 2> take_carried() override { return flows_.take_carried(); }
  void set_nvlink_bandwidth(int gpu, double bandwidth) override;

 private:
  // The GPU's NVLink port links (out and in), found through its route to a GPU of the same domain.
  std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*> ports(int gpu);

  // Whether group g is the job's only group in its domain: else flows between zones share its ports.
  bool alone_in_domain(const std::vector<std::vector<int>>& group_gpus, std::size_t g) const;
  // Whether the route is exactly the out port of its first GPU and the in port of its last: links that
  // belong to the job's GPUs alone.
  bool private_ports(const std::vector<simgrid::s4u::Link*>& route, int from_gpu, int to_gpu);

  const LoadedPlatform& platform_;
  FlowSet flows_;
  bool timers_;                             // the engine's settings keep FlowTimers exact
  std::vector<simgrid::s4u::Link*> route_;  // scratch
  // By GPU, found on first use ({nullptr, nullptr}: not yet): every NVLink launch asks for two.
  std::vector<std::pair<simgrid::s4u::Link*, simgrid::s4u::Link*>> ports_;
};

}  // namespace nvlsim
