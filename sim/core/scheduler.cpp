#include "sim/core/scheduler.hpp"

#include "sim/core/agenda.hpp"
#include "sim/core/job_requests.hpp"

namespace nvlsim {

Scheduler::Scheduler(std::span<const Job> jobs, std::span<const std::size_t> admitted,
                     const PlacementPolicy& policy, const SimulationConfig& config, const ClusterShape& shape)
    : jobs_(jobs),
      policy_(policy),
      bf_interval_(config.bf_interval),
      requests_(jobs.size()),
      order_(jobs.size(), 0),
      starting_(jobs.size(), 0) {
  for (std::size_t i = 0; i < admitted.size(); ++i) {
    requests_[admitted[i]] = request_of(jobs[admitted[i]], config, shape);
    order_[admitted[i]] = i;
  }
}

void Scheduler::submit(std::size_t job) {
  queue_.push_back(entry(job));
}

void Scheduler::requeue(std::size_t job) {
  queue_.insert(entry(job), order_);
}

// Jobs start in queue order at every change; the backfill pass past a blocked head runs at most every
// bf_interval, as Slurm's sched/backfill does. A change inside the interval asks for a wake-up for the
// pass at its end; with no change since the last pass there is nothing new to backfill.
Scheduler::Pass Scheduler::pass(double now, RunningSet& running) {
  const bool backfill = now + kTimeSlack >= next_backfill_;  // due events may fire a hair early
  if (backfill) next_backfill_ = now + bf_interval_;
  BackfillConfig bf;
  bf.backfill = backfill;
  BackfillReport report;
  Pass out;
  out.starts = easy_backfill(now, running.state_for_pass(), queue_.jobs(), running.replay_for_pass(), policy_,
                             bf, &report);
  placement_blocked_ = report.placement_blocked;
  for (const auto& d : out.starts) starting_[d.job] = 1;
  queue_.remove(out.starts.size(), [this](std::size_t job) { return starting_[job] != 0; });
  for (const auto& d : out.starts) starting_[d.job] = 0;
  if (!backfill && !queue_.empty() && !wake_pending_) {
    out.wake_at = next_backfill_;
    wake_pending_ = true;
  }
  return out;
}

}  // namespace nvlsim
