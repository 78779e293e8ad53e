#pragma once
// The replay core: jobs arrive, are scheduled, run and fail on a network behind the Network seam.

#include <cstddef>
#include <span>
#include <vector>

#include "analysis/records/attempt_record.hpp"
#include "analysis/records/job_outcome.hpp"
#include "analysis/records/state_sample.hpp"
#include "platforms/platform_spec.hpp"
#include "schedulers/placement_policy.hpp"
#include "sim/core/job_lifecycle.hpp"
#include "sim/core/network.hpp"
#include "sim/core/simulation_config.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

struct DriverOutput {
  std::vector<StateSample> samples;   // the cluster's state at every change
  std::vector<AttemptRecord> killed;  // attempts failures killed, in the order they were killed
  std::vector<double> rack_failures;  // when whole racks failed, in time order
};

// Replays the admitted jobs (indices into `jobs`, in admission order) to the end: submits them at their
// submit times, asks the policy for placements at every change, runs them (job_lifecycle.hpp) and applies
// config.failures. Must run where `network` may wait (on SimGrid: inside an actor). Fills outcomes[j]
// for every admitted job index j.
DriverOutput replay(const PlatformSpec& platform, std::span<const Job> jobs,
                    std::span<const std::size_t> admitted, const PlacementPolicy& policy,
                    const SimulationConfig& config, std::vector<JobOutcome>& outcomes,
                    const ProgressFn& progress, Network& network);

}  // namespace nvlsim
