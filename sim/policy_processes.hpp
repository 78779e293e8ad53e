#pragma once
// Runs several policies on the same loaded platform, each in its own child process.
// A SimGrid engine runs once per process, so the parent loads and checks the platform, then forks
// one child per policy; the children replay independently and send their results back.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/policy_run.hpp"

namespace nvlsim {

struct ProcessOptions {
  int max_parallel = 2;        // children running at once
  bool show_progress = false;  // one status line on stderr, rewritten in place
};

// Results in the order of `policies`. Throws std::runtime_error with the child's message if one fails.
std::vector<PolicyResult> run_policies(std::span<const std::unique_ptr<PlacementPolicy>> policies,
                                       const LoadedPlatform& platform, std::span<const Job> jobs,
                                       const SimulationConfig& config, const ProcessOptions& options);

}  // namespace nvlsim
