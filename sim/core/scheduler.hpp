#pragma once
// The queue of waiting jobs and the scheduling passes over it: which jobs start, and when the next
// backfill pass is due.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "schedulers/easy_backfill.hpp"
#include "schedulers/placement_policy.hpp"
#include "sim/core/job_queue.hpp"
#include "sim/core/running_set.hpp"
#include "sim/core/simulation_config.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

class Scheduler {
 public:
  Scheduler(std::span<const Job> jobs, std::span<const std::size_t> admitted, const PlacementPolicy& policy,
            const SimulationConfig& config, const ClusterShape& shape);

  // Each admitted job's request by job index (the others stay empty).
  std::span<const JobRequest> requests() const { return requests_; }

  // Queues a job at the back, or a requeued one back at its place in admission order.
  void submit(std::size_t job);
  void requeue(std::size_t job);

  struct Pass {
    std::vector<StartDecision> starts;  // already off the queue: the caller must start them
    std::optional<double> wake_at;      // when the backfill pass this one skipped is due
  };
  // A pass at `now` over the queue and the running jobs.
  Pass pass(double now, RunningSet& running);
  // The wake-up a pass asked for came due.
  void woke() { wake_pending_ = false; }

  std::size_t queued() const { return queue_.size(); }
  std::int64_t queued_gpus() const { return queue_.gpus(); }
  // Whether the last pass found a job held back by placement rules, not by a lack of GPUs.
  bool placement_blocked() const { return placement_blocked_; }

 private:
  QueuedJob entry(std::size_t job) const { return {job, requests_[job], jobs_[job].time_limit}; }

  std::span<const Job> jobs_;
  const PlacementPolicy& policy_;
  double bf_interval_;
  std::vector<JobRequest> requests_;
  std::vector<std::size_t> order_;  // by job index: its place in admission order
  std::vector<char> starting_;      // by job index: started by the current pass
  JobQueue queue_;
  double next_backfill_ = 0;
  bool wake_pending_ = false;
  bool placement_blocked_ = false;
};

}  // namespace nvlsim
