#pragma once
// Replays jobs on a loaded SimGrid platform under one placement policy.

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "analysis/attempt_record.hpp"
#include "analysis/job_outcome.hpp"
#include "analysis/state_sample.hpp"
#include "platforms/platform_loader.hpp"
#include "schedulers/easy_backfill.hpp"
#include "schedulers/placement_policy.hpp"
#include "sim/simulation_config.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

// Called now and then with the number of jobs finished and the simulated time.
using ProgressFn = std::function<void(std::size_t jobs_done, double sim_time)>;

struct DriverOutput {
  std::vector<StateSample> samples;   // the cluster's state at every change
  std::vector<AttemptRecord> killed;  // attempts failures killed, in the order they were killed
};

// Runs the engine to the end: one driver actor submits the admitted jobs at their submit times, asks
// the policy for placements at every change, and runs each job as rounds of computation and
// collective communication, the latter as SimGrid transfers so that jobs sharing links slow each
// other. Failures (config.failures) take parts down: jobs on them are killed and requeued from their
// last checkpoint; NVSwitch and NVLink failures lower the domain's bandwidth. Fills outcomes[j] (the
// last attempt) for every admitted job index j. An engine can run only once, so this is called once
// per process.
DriverOutput run_jobs(const LoadedPlatform& platform, std::span<const Job> jobs,
                      std::span<const std::size_t> admitted, const PlacementPolicy& policy,
                      const SimulationConfig& config, std::vector<JobOutcome>& outcomes,
                      const ProgressFn& progress);

}  // namespace nvlsim
