#pragma once
// The placement interface: given the cluster's state and a request, pick resources or say "not now".
// One policy per file; register it in policy_registry.cpp.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "schedulers/allocation.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/job_request.hpp"

namespace nvlsim {

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  // The full spec this policy was made from ("sub-block:segment=8"); used as its name in every output.
  virtual const std::string& name() const = 0;
  // Resources for the request on the current state, or nullopt when it cannot start now.
  virtual std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const = 0;
  // True when a request that fits `state`, or a state that has released some of its running jobs'
  // allocations (with the same down GPUs), still fits once any running job's allocation is released, as
  // select/cons_tres's choices do. Slurm's topology/block may refuse a GPU count after a release that it
  // placed before (it picks the tightest block by nodes, then finds its GPUs short): the backfill
  // reservation then asks every replayed future from the earliest that may fit instead of stepping between
  // them (tests/unit/test_placement_contract.cpp checks each policy's claim).
  virtual bool monotone(const ClusterState& state, const JobRequest& request) const {
    (void)state;
    (void)request;
    return true;
  }
  // A cheap necessary condition for place() to succeed: false only when place() would return nullopt.
  // Unlike place(), it must always keep holding when a running job's allocation is released.
  // Schedulers ask it first, since they try the same sizes on many states.
  virtual bool may_fit(const ClusterState& state, const JobRequest& request) const {
    return state.free_gpus() >= request.gpus;
  }
  // The salloc options that ask Slurm for what this policy does with the request (docs/policies.md): the
  // request's own (slurm_request_options) and any the policy stands for, such as --exclusive=topo. The
  // Slurm oracle submits exactly these.
  virtual std::vector<std::string> slurm_options(const JobRequest& request) const {
    return slurm_request_options(request);
  }
  // Why the policy refuses the request whatever the machine's state, in Slurm's words (a segment Slurm
  // rejects, say), or "" when it may place it. A run rejects such a job with this reason.
  virtual std::string refusal(const JobRequest& request) const {
    (void)request;
    return {};
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
