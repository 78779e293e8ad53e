#include "sim/core/job_lifecycle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "models/sharing_interference.hpp"

namespace nvlsim {

JobLifecycle::JobLifecycle(const PlatformSpec& platform, std::span<const Job> jobs, std::size_t admitted,
                           const SimulationConfig& config, std::vector<JobOutcome>& outcomes,
                           const ProgressFn& progress, Agenda& agenda, Network& network, RunningSet& running)
    : platform_(platform),
      jobs_(jobs),
      admitted_(admitted),
      config_(config),
      outcomes_(outcomes),
      progress_(progress),
      agenda_(agenda),
      network_(network),
      running_(running),
      references_(platform),
      slot_of_(jobs.size()),
      progress_of_(jobs.size()) {}

void JobLifecycle::push(double time, std::size_t job, EventKind kind) {
  agenda_.push(time, job, kind, progress_of_[job].attempt);
}

void JobLifecycle::start(std::size_t job, const Allocation& allocation) {
  const double now = network_.now();
  const Job& j = jobs_[job];
  running_.add(job, now + j.time_limit, allocation);  // +infinity without a limit: ends never

  JobProgress& p = progress_of_[job];
  ++p.attempt;
  if (free_slots_.empty()) {
    slot_of_[job] = static_cast<std::uint32_t>(attempts_.size());
    attempts_.emplace_back();
  } else {
    slot_of_[job] = free_slots_.back();
    free_slots_.pop_back();
  }
  Attempt& a = attempt(job);
  a.start = now;
  a.work = j.run_time - p.saved_work;
  a.work_started = p.attempt > 1 ? now + config_.requeue.restart_overhead : now;
  a.group_gpus = group_by_zone(allocation.gpus, platform_.shape);
  a.groups = gpu_groups(a.group_gpus, platform_.shape);
  plan_rounds(j, platform_, config_, references_, a);
  if (allocation.shards > 0) {
    a.speed = sharing_speed(allocation);
    update_speeds(allocation.gpus, job);
  }

  JobOutcome& out = outcomes_[job];
  out.start = now;
  out.gpus = allocation.gpus;
  out.gpu_share =
      allocation.shards > 0 ? static_cast<double>(allocation.shards) / config_.sharing.shares_per_gpu() : 1;
  out.domains = a.groups.empty() ? 0 : a.groups.back().domain + 1;
  // A job without a limit (unknown requested time, no --default-time) is never killed for its time.
  if (config_.walltime_kill && std::isfinite(j.time_limit))
    push(now + j.time_limit + kTimeSlack * std::max(1.0, j.time_limit), job, EventKind::time_limit);
  if (a.work_started > now)
    push(a.work_started, job, EventKind::work_start);
  else
    begin_round(job);
}

void JobLifecycle::begin_round(std::size_t job) {
  Attempt& a = attempt(job);
  if (a.round == a.rounds) {
    finish(job, FinalState::completed_successfully, "", network_.now());
    return;
  }
  a.computed = 0;
  a.speed_since = network_.now();
  schedule_compute_done(job, a);
}

void JobLifecycle::schedule_compute_done(std::size_t job, Attempt& a) {
  a.compute_due = a.speed_since + (a.compute_per_round - a.computed) / a.speed;
  push(a.compute_due, job, EventKind::compute_done);
}

double JobLifecycle::sharing_speed(const Allocation& allocation) const {
  if (allocation.shards == 0) return 1;
  int most = 1;
  for (int gpu : allocation.gpus) most = std::max(most, static_cast<int>(running_.owners_of(gpu).size()));
  return shared_gpu_speed(most, config_.sharing.interference);
}

// The jobs on these GPUs gained or lost a neighbour: each computes at its new speed from now on, and a
// round in progress ends when its remaining computation is done at that speed.
void JobLifecycle::update_speeds(const std::vector<int>& gpus, std::size_t except) {
  const double now = network_.now();
  for (int gpu : gpus) {
    for (std::size_t other : running_.owners_of(gpu)) {
      if (other == except) continue;
      Attempt& a = attempt(other);
      const double speed = sharing_speed(running_.allocation(other));
      if (speed == a.speed) continue;
      const bool computing = !a.communicating && now >= a.work_started && a.round < a.rounds;
      if (!computing) {
        a.speed = speed;
        continue;
      }
      a.computed = a.computed_by(now);
      a.speed_since = now;
      a.speed = speed;
      schedule_compute_done(other, a);
    }
  }
}

void JobLifecycle::on_event(const Event& e) {
  const std::size_t job = e.index;
  // The attempt the event belongs to ended before it came due.
  if (!running_.contains(job) || e.attempt != progress_of_[job].attempt) return;
  Attempt& a = attempt(job);
  switch (e.kind) {
    case EventKind::work_start:
      begin_round(job);
      break;
    case EventKind::compute_done:
      // A change of speed moved the round's end: this event is the old one.
      if (e.time != a.compute_due) return;
      a.step = 0;
      a.round_comm_time = 0;
      a.communicating = true;
      begin_step(job);
      break;
    case EventKind::time_limit:
      // The event fires a hair after the limit so that jobs ending exactly at it complete; Slurm
      // kills at the limit itself, and that is the end we report.
      cancel_flows(job);
      finish(job, FinalState::completed_walltime_reached, "killed at its time limit",
             a.start + jobs_[job].time_limit);
      break;
    default:
      break;
  }
}

// The job loses the work since its last checkpoint and is requeued in its original place, as Slurm
// requeues, until it has been requeued max_requeue times.
bool JobLifecycle::kill(std::size_t job, const std::string& reason) {
  const double now = network_.now();
  Attempt& a = attempt(job);
  JobProgress& p = progress_of_[job];
  const double done = a.work_done(now, cancel_flows(job));
  const double saved = p.checkpointed(done, config_.requeue.checkpoint_interval, jobs_[job].run_time);
  killed_.push_back({job, static_cast<int>(p.attempt) - 1, a.start, now, running_.allocation(job).gpus, done,
                     saved - p.saved_work, reason, outcomes_[job].gpu_share});
  p.saved_work = saved;
  JobOutcome& out = outcomes_[job];
  if (out.restarts >= config_.requeue.max_requeue) {
    finish(job, FinalState::completed_killed,
           fmt::format("{}; requeue limit ({}) reached", reason, config_.requeue.max_requeue), now);
    return false;
  }
  release(job);
  ++out.restarts;
  return true;
}

void JobLifecycle::begin_step(std::size_t job) {
  Attempt& a = attempt(job);
  const double now = network_.now();
  while (a.step < a.steps.size()) {
    a.step_started = now;
    launches_.clear();
    for (const auto& f : a.steps[a.step].flows) plan_launch(job, f);
    a.flows_left = static_cast<int>(launches_.size());
    if (a.flows_left > 0) {
      network_.launch_step(a.group_gpus, launches_);
      return;
    }
    ++a.step;
  }
  a.communicating = false;
  JobProgress& p = progress_of_[job];
  p.comm_time += a.round_comm_time;
  if (!a.steps.empty()) p.ideal_time += a.ideal_comm_per_round;
  ++a.round;
  begin_round(job);
}

void JobLifecycle::plan_launch(std::size_t job, const PlannedFlow& f) {
  JobOutcome& out = outcomes_[job];
  out.comm_bytes += f.bytes * f.multiplicity;
  if (f.plane == Plane::infiniband) out.cross_domain_bytes += f.bytes * f.multiplicity;
  // plan_rounds keeps wire bytes within kMaxFlowBytes, which a 64-bit integer holds.
  const auto size = static_cast<std::uint64_t>(std::llround(f.wire_bytes()));
  if (size == 0) return;
  launches_.push_back({f, {job, f.plane, f.multiplicity, static_cast<double>(size)}});
}

void JobLifecycle::flow_done(std::size_t job) {
  Attempt& a = attempt(job);
  if (--a.flows_left > 0) return;
  a.round_comm_time += network_.now() - a.step_started;
  ++a.step;
  begin_step(job);
}

// Stops the job's transfers, crediting the part of the current round's communication already done
// to its bandwidth figures: completed steps in full, the current one by the mean share of bytes sent.
// Returns that part as a share of the round's communication (0 when not communicating).
double JobLifecycle::cancel_flows(std::size_t job) {
  Attempt& a = attempt(job);
  const CancelledFlows cancelled = network_.cancel(job);
  a.flows_left = 0;
  if (!a.communicating || a.round_comm_uncontended <= 0) return 0;
  double done = 0;
  for (std::size_t k = 0; k < a.step; ++k) done += a.step_times[k];
  if (cancelled.flows > 0) done += a.step_times[a.step] * cancelled.sent_share / cancelled.flows;
  const double share = done / a.round_comm_uncontended;
  JobProgress& p = progress_of_[job];
  p.comm_time += a.round_comm_time + (network_.now() - a.step_started);
  p.ideal_time += a.ideal_comm_per_round * share;
  return share;
}

void JobLifecycle::release(std::size_t job) {
  const Allocation& allocation = running_.allocation(job);
  const std::vector<int> shared = allocation.shards > 0 ? allocation.gpus : std::vector<int>{};
  running_.remove(job);
  // Its plan is freed now, so that the slot's next attempt starts from a fresh one.
  attempt(job) = Attempt{};
  free_slots_.push_back(slot_of_[job]);
  released_ = true;
  update_speeds(shared, job);
}

void JobLifecycle::finish(std::size_t job, FinalState final_state, std::string reason, double end) {
  release(job);
  JobOutcome& out = outcomes_[job];
  out.state = final_state;
  out.finish = end;
  out.reason = std::move(reason);
  const JobProgress& p = progress_of_[job];
  if (p.comm_time > 0) out.bw_efficiency = p.ideal_time / p.comm_time;
  ++finished_;
  if (progress_ && (finished_ % 1024 == 0 || finished_ == admitted_)) progress_(finished_, out.finish);
}

}  // namespace nvlsim
