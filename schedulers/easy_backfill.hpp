#pragma once
// Queue order and EASY backfilling, over any placement policy.

#include <cstddef>
#include <span>
#include <vector>

#include "schedulers/allocation.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/placement_policy.hpp"
#include "schedulers/reservation_replay.hpp"

namespace nvlsim {

struct QueuedJob {
  std::size_t job = 0;  // caller's index
  JobRequest request;
  double time_limit = 0;  // s
};

struct RunningJob {
  std::size_t job = 0;
  double expected_end = 0;  // start + time limit
  Allocation allocation;
};

struct StartDecision {
  std::size_t job = 0;
  Allocation allocation;
};

// What a pass saw, for metrics.
struct BackfillReport {
  // Some job it examined would fit in the idle GPUs (free, or closed by exclusive jobs) by count, but the
  // policy could not place it: the placement rules, not a lack of GPUs, held it back.
  bool placement_blocked = false;
};

struct BackfillConfig {
  std::size_t max_job_test = 500;  // Slurm's bf_max_job_test: queued jobs examined past the head
  bool backfill = true;  // false: only start jobs in order (Slurm's main scheduler between backfill passes)
};

// One scheduling pass at time `now` over the queue (in priority order). Jobs start in order while they
// fit. The first that does not fit gets a reservation: the earliest time and the resources at which it
// fits once running jobs end at their expected ends. A later job may start now only if it fits and
// either ends (by its time limit) before that time or uses nothing of the reserved resources. A job that
// would not fit even once every running job ended (down parts keep it out) gets no reservation and is
// passed over: the next job that cannot start is the one promised. `state` is lent to the pass, which
// applies its starts to it while it decides and releases them before it returns: the caller gets it back
// as it was, and starts the decisions itself.
//
// The running jobs are those `running` was told of, and the pass tells it its starts. A replay kept from
// pass to pass (the caller's, for one machine, told of every start and end) makes the reservation cost
// what changed since the last pass instead of a replay of every running job; the decisions are the same
// either way.
std::vector<StartDecision> easy_backfill(double now, ClusterState& state, std::span<const QueuedJob> queue,
                                         ReservationReplay& running, const PlacementPolicy& policy,
                                         const BackfillConfig& config = {}, BackfillReport* report = nullptr);
// The same pass over a list of running jobs, with a replay of its own.
std::vector<StartDecision> easy_backfill(double now, ClusterState& state, std::span<const QueuedJob> queue,
                                         std::span<const RunningJob> running, const PlacementPolicy& policy,
                                         const BackfillConfig& config = {}, BackfillReport* report = nullptr);

}  // namespace nvlsim
