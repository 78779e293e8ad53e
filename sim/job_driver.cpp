#include "sim/job_driver.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/simgrid_network.hpp"

namespace nvlsim {

DriverOutput run_jobs(const LoadedPlatform& platform, std::span<const Job> jobs,
                      std::span<const std::size_t> admitted, const PlacementPolicy& policy,
                      const SimulationConfig& config, std::vector<JobOutcome>& outcomes,
                      const ProgressFn& progress) {
  auto* engine = simgrid::s4u::Engine::get_instance();
  SimgridNetwork network(platform);
  DriverOutput output;
  simgrid::s4u::Actor::create("nvlsim-driver", platform.gpu_hosts.front(), [&] {
    output = replay(platform.spec, jobs, admitted, policy, config, outcomes, progress, network);
  });
  engine->run();
  return output;
}

}  // namespace nvlsim
