#pragma once
// The placement interface: given the cluster's state and a request, pick resources or say "not now".
// One policy per file; register it in policy_registry.cpp.

#include <optional>
#include <span>
#include <string>

#include "schedulers/allocation.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/job_request.hpp"

namespace nvlsim {

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  // The full spec this policy was made from ("sub-block:segment=8"); used as its name in every output.
  virtual const std::string& name() const = 0;
  // Resources for the request on the current state, or nullopt when it cannot start now. A request that
  // fits must still fit on the state with any running job's allocation released: the backfill
  // reservation steps between replayed futures relying on it (tests/unit/test_placement_contract.cpp).
  virtual std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const = 0;
  // A cheap necessary condition for place() to succeed: false only when place() would return nullopt.
  // Like place(), it must keep holding when a running job's allocation is released.
  // Schedulers ask it first, since they try the same sizes on many states.
  virtual bool may_fit(const ClusterState& state, const JobRequest& request) const {
    return state.free_gpus() >= request.gpus;
  }
  // Groups of trays the policy wants the state to keep counts for (ClusterState::index_groups), or nullptr.
  virtual TrayGroups tray_groups() const { return nullptr; }
  // Healthy idle GPUs this policy cannot offer because of the down GPUs on `down_trays` (ascending, each
  // tray once): for a policy that shares trays and ignores blocks, none.
  virtual int failure_stranded_gpus(const ClusterState& state, std::span<const int> down_trays) const {
    (void)state;
    (void)down_trays;
    return 0;
  }
};

}  // namespace nvlsim
