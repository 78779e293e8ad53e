#pragma once
// Replays jobs on a loaded SimGrid platform under one placement policy.

#include <cstddef>
#include <span>
#include <vector>

#include "analysis/records/job_outcome.hpp"
#include "platforms/platform_loader.hpp"
#include "schedulers/placement_policy.hpp"
#include "sim/core/replay.hpp"
#include "sim/core/simulation_config.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

// Runs the engine to the end: one driver actor replays the admitted jobs (sim/core/replay.hpp) with each
// job's collective communication as SimGrid transfers, so that jobs sharing links slow each other, and
// NVSwitch and NVLink failures lowering the bandwidth of the domain's port links. Fills outcomes[j] (the
// last attempt) for every admitted job index j. An engine can run only once, so this is called once
// per process.
DriverOutput run_jobs(const LoadedPlatform& platform, std::span<const Job> jobs,
                      std::span<const std::size_t> admitted, const PlacementPolicy& policy,
                      const SimulationConfig& config, std::vector<JobOutcome>& outcomes,
                      const ProgressFn& progress);

}  // namespace nvlsim
