#include "sim/policy_run.hpp"

#include <chrono>

#include "sim/admission.hpp"

namespace nvlsim {

PolicyResult run_policy(const PlacementPolicy& policy, const LoadedPlatform& platform,
                        std::span<const Job> jobs, const SimulationConfig& config,
                        const ProgressFn& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  PolicyResult result;
  result.policy = policy.name();
  result.outcomes.resize(jobs.size());
  Admission admission(policy, platform.spec.shape, config);
  std::vector<std::size_t> admitted;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    std::string reason = admission.rejection_reason(jobs[j]);
    if (reason.empty())
      admitted.push_back(j);
    else
      result.outcomes[j].reason = std::move(reason);
  }
  DriverOutput output = run_jobs(platform, jobs, admitted, policy, config, result.outcomes, progress);
  result.samples = std::move(output.samples);
  result.killed = std::move(output.killed);
  result.rack_failures = std::move(output.rack_failures);
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace nvlsim
