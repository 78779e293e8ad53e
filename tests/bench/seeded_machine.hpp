#pragma once
// A seeded machine for the scheduling-pass benchmark: jobs of the built-in mix placed by one policy in
// order, skipping those that do not fit, until many in a row do not (the full machine a long queue keeps
// at load 0.9), and the jobs after them waiting to be queued. Each policy fills the machine its own way,
// as its replays do, from the same seeded jobs.

#include <cstdint>
#include <vector>

#include "schedulers/cluster_state.hpp"
#include "schedulers/easy_backfill.hpp"
#include "schedulers/placement_policy.hpp"

namespace nvlsim {

struct SeededMachine {
  ClusterState state;
  std::vector<RunningJob> running;  // started at random times up to a time limit ago, so ending from now on
  std::vector<QueuedJob> waiting;   // in submission order
};

// `waiting_jobs` jobs wait; the requests are shaped as `nvlsim` shapes them by default (--request-shape
// auto, the built-in classes' segments).
SeededMachine seeded_machine(const ClusterShape& shape, const PlacementPolicy& policy, int waiting_jobs,
                             std::uint64_t seed);

}  // namespace nvlsim
