#include "sim/job_driver.hpp"

#include <exception>

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
  // An exception escaping an actor makes SimGrid abort with a backtrace; an input error found mid-replay
  // (a job too long to simulate on its placement) ends the replay and reaches the caller instead.
  std::exception_ptr failure;
  simgrid::s4u::Actor::create("nvlsim-driver", platform.gpu_hosts.front(), [&] {
    try {
      output = replay(platform.spec, jobs, admitted, policy, config, outcomes, progress, network);
    } catch (...) {
      failure = std::current_exception();
      simgrid::s4u::Actor::kill_all();
    }
  });
  engine->run();
  if (failure) std::rethrow_exception(failure);
  return output;
}

}  // namespace nvlsim
