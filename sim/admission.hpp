#pragma once
// Decides which trace jobs can run at all; the others become REJECTED rows with a reason.

#include <string>
#include <unordered_map>

#include "schedulers/placement_policy.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

class Admission {
 public:
  Admission(const PlacementPolicy& policy, const ClusterShape& shape) : policy_(policy), empty_(shape) {}
  // Empty when the job can run under the policy on this machine; otherwise why not.
  std::string rejection_reason(const Job& job);

 private:
  const PlacementPolicy& policy_;
  ClusterState empty_;
  std::unordered_map<int, bool> placeable_;  // by GPU count: traces repeat sizes
};

}  // namespace nvlsim
