#pragma once
// The typed entry point of a replay: a loaded platform, its jobs, the policies to compare and how jobs
// run, in; one report per policy, out, and the rows behind it written as `outputs` asks. The CLI,
// nvlsim-bench and the tests build the request alike.

#include <span>
#include <string>
#include <vector>

#include "platforms/platform_loader.hpp"
#include "sim/core/simulation_config.hpp"
#include "sim/policy_outputs.hpp"
#include "sim/policy_processes.hpp"
#include "sim/policy_report.hpp"
#include "sim/policy_setup.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

struct ReplayRequest {
  const LoadedPlatform& platform;
  std::string platform_name;  // names the platform in error messages
  std::span<const Job> jobs;
  PolicyRequest policies;
  SimulationConfig sim;  // job model, classes, backfill interval, failures and requeues
  ProcessOptions processes;
  OutputRequest outputs = {};
};

// Builds every policy first, so that a bad spec or topology fails before any replay starts, then replays
// each in its own process. Reports in the order of the policies. Throws InputError for bad input.
std::vector<PolicyReport> replay(const ReplayRequest& request);

}  // namespace nvlsim
