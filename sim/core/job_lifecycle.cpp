#include "sim/core/job_lifecycle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

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
      attempts_(jobs.size()),
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
  Attempt& a = attempts_[job];
  a = Attempt{};
  a.start = now;
  a.work = j.run_time - p.saved_work;
  a.work_started = p.attempt > 1 ? now + config_.requeue.restart_overhead : now;
  a.domain_gpus = group_by_domain(allocation.gpus, platform_.shape);
  plan_rounds(j, platform_, config_, a);

  JobOutcome& out = outcomes_[job];
  out.start = now;
  out.gpus = allocation.gpus;
  out.domains = static_cast<int>(a.domain_gpus.size());
  // A job without a limit (unknown requested time, no --default-time) is never killed for its time.
  if (config_.walltime_kill && std::isfinite(j.time_limit))
    push(now + j.time_limit + kTimeSlack * std::max(1.0, j.time_limit), job, EventKind::time_limit);
  if (a.work_started > now)
    push(a.work_started, job, EventKind::work_start);
  else
    begin_round(job);
}

void JobLifecycle::begin_round(std::size_t job) {
  Attempt& a = attempts_[job];
  if (a.round == a.rounds) {
    finish(job, FinalState::completed_successfully, "", network_.now());
    return;
  }
  a.round_started = network_.now();
  push(a.round_started + a.compute_per_round, job, EventKind::compute_done);
}

void JobLifecycle::on_event(const Event& e) {
  const std::size_t job = e.index;
  // The attempt the event belongs to ended before it came due.
  if (!running_.contains(job) || e.attempt != progress_of_[job].attempt) return;
  Attempt& a = attempts_[job];
  switch (e.kind) {
    case EventKind::work_start:
      begin_round(job);
      break;
    case EventKind::compute_done:
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
  Attempt& a = attempts_[job];
  JobProgress& p = progress_of_[job];
  const double done = a.work_done(now, cancel_flows(job));
  const double saved = p.checkpointed(done, config_.requeue.checkpoint_interval, jobs_[job].run_time);
  killed_.push_back({job, static_cast<int>(p.attempt) - 1, a.start, now, running_.allocation(job).gpus, done,
                     saved - p.saved_work, reason});
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
  Attempt& a = attempts_[job];
  const double now = network_.now();
  while (a.step < a.steps.size()) {
    a.step_started = now;
    a.flows_left = 0;
    for (const auto& f : a.steps[a.step].flows) launch(job, a, f);
    if (a.flows_left > 0) return;
    ++a.step;
  }
  a.communicating = false;
  JobProgress& p = progress_of_[job];
  p.comm_time += a.round_comm_time;
  if (!a.steps.empty()) p.ideal_time += a.ideal_comm_per_round;
  ++a.round;
  begin_round(job);
}

void JobLifecycle::launch(std::size_t job, Attempt& a, const PlannedFlow& f) {
  JobOutcome& out = outcomes_[job];
  out.comm_bytes += f.bytes * f.multiplicity;
  if (f.plane == Plane::infiniband) out.cross_domain_bytes += f.bytes * f.multiplicity;
  // plan_rounds keeps wire bytes within kMaxFlowBytes, which a 64-bit integer holds.
  const auto size = static_cast<std::uint64_t>(std::llround(f.wire_bytes()));
  if (size == 0) return;
  network_.launch(a.domain_gpus, f, {job, f.plane, f.multiplicity, static_cast<double>(size)});
  ++a.flows_left;
}

void JobLifecycle::flow_done(std::size_t job) {
  Attempt& a = attempts_[job];
  if (--a.flows_left > 0) return;
  a.round_comm_time += network_.now() - a.step_started;
  ++a.step;
  begin_step(job);
}

// Stops the job's transfers, crediting the part of the current round's communication already done
// to its bandwidth figures: completed steps in full, the current one by the mean share of bytes sent.
// Returns that part as a share of the round's communication (0 when not communicating).
double JobLifecycle::cancel_flows(std::size_t job) {
  Attempt& a = attempts_[job];
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
  running_.remove(job);
  released_ = true;
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
