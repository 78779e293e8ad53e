#pragma once
// Decides which trace jobs can run at all; the others become REJECTED rows with a reason.

#include <string>
#include <unordered_map>

#include "schedulers/placement_policy.hpp"
#include "sim/core/simulation_config.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

class Admission {
 public:
  // `config` gives the request settings (shaping, CPUs per GPU); it must outlive the admission.
  Admission(const PlacementPolicy& policy, const ClusterShape& shape, const SimulationConfig& config)
      : policy_(policy), config_(config), empty_(shape) {}
  // Empty when the job can run under the policy on this machine; otherwise why not.
  std::string rejection_reason(const Job& job);

 private:
  const PlacementPolicy& policy_;
  const SimulationConfig& config_;
  ClusterState empty_;
  // By the trace job's GPU count: traces repeat sizes, and a run shapes every size the same way.
  std::unordered_map<int, bool> placeable_;
};

}  // namespace nvlsim
