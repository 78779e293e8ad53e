#pragma once
// Decides which trace jobs can run at all; the others become REJECTED rows with a reason.

#include <map>
#include <string>
#include <tuple>

#include "schedulers/placement_policy.hpp"
#include "sim/core/simulation_config.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

class Admission {
 public:
  // `config` gives the request settings (shaping, CPUs per GPU); it must outlive the admission.
  Admission(const PlacementPolicy& policy, const ClusterShape& shape, const SimulationConfig& config)
      : policy_(policy), config_(config), empty_(shape, config.sharing.shares_per_gpu()) {}
  // Empty when the job can run under the policy on this machine; otherwise why not.
  std::string rejection_reason(const Job& job);

 private:
  const PlacementPolicy& policy_;
  const SimulationConfig& config_;
  ClusterState empty_;
  // By the request's GPUs, shares (0: whole GPUs), class segment and shape: traces repeat sizes, so a
  // placement on the empty machine is tried once per kind of request.
  std::map<std::tuple<int, int, int, RequestShape>, bool> placeable_;
};

}  // namespace nvlsim
