#pragma once
// One policy's replay of the trace, start to end, in this process.

#include <span>
#include <string>
#include <vector>

#include "analysis/records/job_outcome.hpp"
#include "analysis/records/state_sample.hpp"
#include "platforms/platform_loader.hpp"
#include "schedulers/placement_policy.hpp"
#include "sim/core/simulation_config.hpp"
#include "sim/job_driver.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

struct PolicyResult {
  std::string policy;
  std::vector<JobOutcome> outcomes;   // index = job index
  std::vector<StateSample> samples;   // the cluster's state at every change
  std::vector<AttemptRecord> killed;  // attempts failures killed
  std::vector<double> rack_failures;  // when whole racks failed
  double wall_seconds = 0;
};

// Rejects what cannot run, replays the rest on the engine (which can run only once per process).
PolicyResult run_policy(const PlacementPolicy& policy, const LoadedPlatform& platform,
                        std::span<const Job> jobs, const SimulationConfig& config,
                        const ProgressFn& progress);

}  // namespace nvlsim
