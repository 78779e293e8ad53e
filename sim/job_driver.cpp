#include "sim/job_driver.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/collective.hpp"
#include "sim/agenda.hpp"
#include "sim/flow_endpoints.hpp"
#include "sim/flow_set.hpp"
#include "sim/hardware_health.hpp"
#include "sim/job_attempt.hpp"
#include "sim/job_queue.hpp"
#include "sim/job_requests.hpp"
#include "sim/state_sampler.hpp"

namespace nvlsim {

namespace {

namespace s4u = simgrid::s4u;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Events this close to the clock are due: the clock moves by sums of durations, which round.
constexpr double kTimeSlack = 1e-9;

class Driver {
 public:
  Driver(const LoadedPlatform& platform, std::span<const Job> jobs, std::span<const std::size_t> admitted,
         const PlacementPolicy& policy, const SimulationConfig& config, std::vector<JobOutcome>& outcomes,
         const ProgressFn& progress)
      : platform_(platform),
        jobs_(jobs),
        admitted_(admitted),
        policy_(policy),
        config_(config),
        outcomes_(outcomes),
        progress_(progress),
        requests_(shape_requests(jobs, admitted, config, platform.spec.shape)),
        state_(platform.spec.shape),
        sampler_(platform.spec.shape, platform.spec.fabric, requests_, admitted),
        health_(platform),
        failure_source_(make_failure_source(config.failures, platform)),
        attempts_(jobs.size()),
        progress_of_(jobs.size()),
        running_index_(jobs.size(), kNotRunning),
        gpu_owner_(platform.spec.shape.gpus(), kNotRunning),
        order_(jobs.size(), 0) {
    for (std::size_t i = 0; i < admitted.size(); ++i) order_[admitted[i]] = i;
  }

  void operator()() {
    pull_failure();
    record_state();
    while (finished_ < admitted_.size()) {
      for (const Flow& f : flows_.take_finished()) flow_done(f.job);
      const double now = s4u::Engine::get_clock();
      while (next_submit_ < admitted_.size() &&
             jobs_[admitted_[next_submit_]].submit_time <= now + kTimeSlack)
        submit(admitted_[next_submit_++]);
      while (agenda_.next_time() <= now + kTimeSlack) handle(agenda_.pop());
      if (dirty_) {
        schedule();
        record_state();
      }
      wait_for_next_change();
    }
    record_state();
    output_.samples = sampler_.take();
  }

  DriverOutput take_output() { return std::move(output_); }

 private:
  static constexpr std::size_t kNotRunning = std::numeric_limits<std::size_t>::max();

  // Each admitted job's request, by job index (the others stay empty): shaped once, asked at every pass.
  static std::vector<JobRequest> shape_requests(std::span<const Job> jobs,
                                                std::span<const std::size_t> admitted,
                                                const SimulationConfig& config, const ClusterShape& shape) {
    std::vector<JobRequest> requests(jobs.size());
    for (std::size_t j : admitted) requests[j] = request_of(jobs[j], config, shape);
    return requests;
  }

  static FailureSource make_failure_source(const FailureConfig& f, const LoadedPlatform& platform) {
    switch (f.mode) {
      case FailureMode::none:
        return {};
      case FailureMode::model:
        return FailureSource(FailureGenerator(f.model, platform.spec.shape,
                                              platform.spec.fabric.nvlink_links_per_gpu, f.seed));
      case FailureMode::replay:
        return FailureSource(f.replay);
    }
    return {};
  }

  double next_time() const {
    double t = agenda_.next_time();
    if (next_submit_ < admitted_.size()) t = std::min(t, jobs_[admitted_[next_submit_]].submit_time);
    return t;
  }

  void wait_for_next_change() {
    if (finished_ == admitted_.size()) return;
    const double now = s4u::Engine::get_clock();
    const double next = next_time();
    if (next <= now + kTimeSlack) return;
    if (!flows_.empty()) {
      flows_.wait_until(next);
      return;
    }
    if (next == kInfinity) throw std::logic_error("nvlsim: jobs wait but nothing runs or arrives");
    s4u::this_actor::sleep_until(next);
  }

  void push(double time, std::size_t index, EventKind kind) { agenda_.push(time, index, kind); }
  void push_job(double time, std::size_t job, EventKind kind) {
    agenda_.push(time, job, kind, progress_of_[job].attempt);
  }

  void record_state() {
    const auto carried = flows_.take_carried();
    const auto& down_trays = health_.down_trays();
    const int failure_stranded = down_trays.empty() ? 0 : policy_.failure_stranded_gpus(state_, down_trays);
    sampler_.record(s4u::Engine::get_clock(), state_, static_cast<int>(queue_.size()), queue_.gpus(),
                    busy_gpus_, placement_blocked_, failure_stranded, carried[0], carried[1]);
  }

  void submit(std::size_t job) {
    queue_.push_back({job, requests_[job], jobs_[job].time_limit});
    dirty_ = true;
  }

  // Jobs start in queue order at every change; the backfill pass past a blocked head runs at most every
  // bf_interval, as Slurm's sched/backfill does. A change inside the interval leaves a wake-up for the
  // pass at its end; with no change since the last pass there is nothing new to backfill.
  void schedule() {
    dirty_ = false;
    const double now = s4u::Engine::get_clock();
    const bool backfill = now + kTimeSlack >= next_backfill_;  // due events may fire a hair early
    if (backfill) next_backfill_ = now + config_.bf_interval;
    BackfillConfig bf;
    bf.backfill = backfill;
    BackfillReport report;
    const auto decisions =
        easy_backfill(now, state_, queue_.jobs(), running_, policy_, bf, &report, &replay_);
    placement_blocked_ = report.placement_blocked;
    for (const auto& d : decisions) start(d.job, d.allocation, now);
    if (!decisions.empty()) {
      // The pass started jobs only in the prefix it examined (the in-order starts, the head and at most
      // max_job_test past it); rescanning the whole queue at every pass made long queues quadratic.
      queue_.erase_started(decisions.size() + 1 + bf.max_job_test,
                           [this](std::size_t job) { return attempts_[job].running; });
    }
    if (!backfill && !queue_.empty() && !backfill_pending_) {
      push(next_backfill_, 0, EventKind::backfill);
      backfill_pending_ = true;
    }
  }

  void start(std::size_t job, const Allocation& allocation, double now) {
    const Job& j = jobs_[job];
    state_.apply(allocation);
    sampler_.touch(allocation);
    busy_gpus_ += static_cast<int>(allocation.gpus.size());
    running_index_[job] = running_.size();
    running_.push_back({job, now + j.time_limit, allocation});  // +infinity without a limit: ends never
    for (int gpu : allocation.gpus) gpu_owner_[gpu] = job;

    JobProgress& p = progress_of_[job];
    ++p.attempt;
    Attempt& a = attempts_[job];
    a = Attempt{};
    a.allocation = allocation;
    a.running = true;
    a.start = now;
    a.work = j.run_time - p.saved_work;
    a.work_started = p.attempt > 1 ? now + config_.requeue.restart_overhead : now;
    a.domain_gpus = group_by_domain(allocation.gpus, platform_.spec.shape);
    plan_rounds(j, platform_, config_, a);

    JobOutcome& out = outcomes_[job];
    out.start = now;
    out.gpus = allocation.gpus;
    out.domains = static_cast<int>(a.domain_gpus.size());
    // A job without a limit (unknown requested time, no --default-time) is never killed for its time.
    if (config_.walltime_kill && std::isfinite(j.time_limit))
      push_job(now + j.time_limit + kTimeSlack * std::max(1.0, j.time_limit), job, EventKind::time_limit);
    if (a.work_started > now)
      push_job(a.work_started, job, EventKind::work_start);
    else
      begin_round(job);
  }

  void begin_round(std::size_t job) {
    Attempt& a = attempts_[job];
    if (a.round == config_.comm_rounds) {
      finish(job, FinalState::completed_successfully, "");
      return;
    }
    a.round_started = s4u::Engine::get_clock();
    push_job(a.round_started + a.compute_per_round, job, EventKind::compute_done);
  }

  void handle(const Event& e) {
    switch (e.kind) {
      case EventKind::backfill:
        backfill_pending_ = false;
        dirty_ = true;
        return;
      case EventKind::failure:
        fail(e.index);
        return;
      case EventKind::repair:
        repair(e.index);
        return;
      default:
        break;
    }
    const std::size_t job = e.index;
    Attempt& a = attempts_[job];
    // The attempt the event belongs to ended before it came due.
    if (!a.running || e.attempt != progress_of_[job].attempt) return;
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

  // Keeps the next failure of the source in the agenda.
  void pull_failure() {
    if (auto f = failure_source_.next()) {
      failures_.push_back(*f);
      push(f->time, failures_.size() - 1, EventKind::failure);
    }
  }

  void fail(std::size_t index) {
    const FailureEvent f = failures_[index];
    pull_failure();
    // A model keeps failing parts forever. Once nothing runs and nothing is left to submit, the queued
    // jobs wait only for repairs; failing parts then could keep a job larger than the healthy part of
    // the machine waiting forever, so the model's failures of such an idle machine are left out.
    if (config_.failures.mode == FailureMode::model && running_.empty() && next_submit_ == admitted_.size())
      return;
    push(f.time + f.duration, index, EventKind::repair);
    const std::vector<int> down = health_.fail(f);
    std::vector<std::size_t> victims;
    for (int gpu : down)
      if (gpu_owner_[gpu] != kNotRunning) victims.push_back(gpu_owner_[gpu]);
    std::sort(victims.begin(), victims.end());
    victims.erase(std::unique(victims.begin(), victims.end()), victims.end());
    if (!victims.empty()) {
      const std::string reason = fmt::format("{} {} failed", to_string(f.component), f.id);
      for (std::size_t job : victims) kill(job, reason);
    }
    set_down(down, true);
    dirty_ = true;
  }

  void repair(std::size_t index) {
    set_down(health_.repair(failures_[index]), false);
    dirty_ = true;
  }

  void set_down(const std::vector<int>& gpus, bool down) {
    if (gpus.empty()) return;
    for (int gpu : gpus) state_.set_down(gpu, down);
    Allocation changed;
    changed.gpus = gpus;
    sampler_.touch(changed);
  }

  // A failure ends the attempt; the job loses the work since its last checkpoint and is requeued in its
  // original place, as Slurm requeues, until it has been requeued max_requeue times.
  void kill(std::size_t job, const std::string& reason) {
    const double now = s4u::Engine::get_clock();
    Attempt& a = attempts_[job];
    JobProgress& p = progress_of_[job];
    const double done = a.work_done(now, cancel_flows(job), config_.comm_rounds);
    const double saved = p.checkpointed(done, config_.requeue.checkpoint_interval, jobs_[job].run_time);
    output_.killed.push_back({job, static_cast<int>(p.attempt) - 1, a.start, now, a.allocation.gpus, done,
                              saved - p.saved_work, reason});
    p.saved_work = saved;
    JobOutcome& out = outcomes_[job];
    if (out.restarts >= config_.requeue.max_requeue) {
      finish(job, FinalState::completed_killed,
             fmt::format("{}; requeue limit ({}) reached", reason, config_.requeue.max_requeue), now);
      return;
    }
    release(job);
    ++out.restarts;
    queue_.insert({job, requests_[job], jobs_[job].time_limit}, order_);
  }

  void begin_step(std::size_t job) {
    Attempt& a = attempts_[job];
    const double now = s4u::Engine::get_clock();
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

  // One aggregated flow per planned flow (see flow_endpoints.hpp): a flow per NIC would load shared
  // fabric links by volume, but costs SimGrid 3.32 O(flows) per completion (its detached comms live in
  // a list), twenty times the run time on nvl72x64 (docs/model.md).
  void launch(std::size_t job, Attempt& a, const PlannedFlow& f) {
    JobOutcome& out = outcomes_[job];
    out.comm_bytes += f.bytes * f.multiplicity;
    if (f.plane == Plane::infiniband) out.cross_domain_bytes += f.bytes * f.multiplicity;
    const auto size = static_cast<std::uint64_t>(std::llround(f.bytes));
    if (size == 0) return;
    const auto [from, to] = flow_endpoints(platform_, a.domain_gpus, f);
    flows_.launch(from, to, size, {job, f.plane, f.multiplicity, static_cast<double>(size)});
    ++a.flows_left;
  }

  void flow_done(std::size_t job) {
    Attempt& a = attempts_[job];
    if (--a.flows_left > 0) return;
    a.round_comm_time += s4u::Engine::get_clock() - a.step_started;
    ++a.step;
    begin_step(job);
  }

  // Stops the job's transfers, crediting the part of the current round's communication already done
  // to its bandwidth figures: completed steps in full, the current one by the mean share of bytes sent.
  // Returns that part as a share of the round's communication (0 when not communicating).
  double cancel_flows(std::size_t job) {
    Attempt& a = attempts_[job];
    const CancelledFlows cancelled = flows_.cancel(job);
    a.flows_left = 0;
    if (!a.communicating || a.round_comm_uncontended <= 0) return 0;
    double done = 0;
    for (std::size_t k = 0; k < a.step; ++k) done += a.step_times[k];
    if (cancelled.flows > 0) done += a.step_times[a.step] * cancelled.sent_share / cancelled.flows;
    const double share = done / a.round_comm_uncontended;
    JobProgress& p = progress_of_[job];
    p.comm_time += a.round_comm_time + (s4u::Engine::get_clock() - a.step_started);
    p.ideal_time += a.ideal_comm_per_round * share;
    return share;
  }

  // Frees the attempt's resources.
  void release(std::size_t job) {
    Attempt& a = attempts_[job];
    a.running = false;
    for (int gpu : a.allocation.gpus) gpu_owner_[gpu] = kNotRunning;
    state_.release(a.allocation);
    sampler_.touch(a.allocation);
    busy_gpus_ -= static_cast<int>(a.allocation.gpus.size());
    const std::size_t pos = running_index_[job];
    running_[pos] = std::move(running_.back());
    running_index_[running_[pos].job] = pos;
    running_.pop_back();
    running_index_[job] = kNotRunning;
    dirty_ = true;
  }

  void finish(std::size_t job, FinalState final_state, std::string reason,
              double end = s4u::Engine::get_clock()) {
    release(job);
    JobOutcome& out = outcomes_[job];
    out.state = final_state;
    out.finish = end;
    out.reason = std::move(reason);
    const JobProgress& p = progress_of_[job];
    if (p.comm_time > 0) out.bw_efficiency = p.ideal_time / p.comm_time;
    ++finished_;
    if (progress_ && (finished_ % 1024 == 0 || finished_ == admitted_.size()))
      progress_(finished_, out.finish);
  }

  const LoadedPlatform& platform_;
  std::span<const Job> jobs_;
  std::span<const std::size_t> admitted_;
  const PlacementPolicy& policy_;
  const SimulationConfig& config_;
  std::vector<JobOutcome>& outcomes_;
  const ProgressFn& progress_;

  std::vector<JobRequest> requests_;  // before sampler_, which reads it
  ClusterState state_;
  StateSampler sampler_;
  HardwareHealth health_;
  FailureSource failure_source_;
  std::vector<FailureEvent> failures_;  // drawn so far; failure and repair events index it
  DriverOutput output_;
  int busy_gpus_ = 0;
  std::vector<Attempt> attempts_;
  std::vector<JobProgress> progress_of_;
  JobQueue queue_;
  std::vector<RunningJob> running_;
  ReservationReplay replay_;  // the backfill reservation's future, carried from pass to pass
  std::vector<std::size_t> running_index_;
  std::vector<std::size_t> gpu_owner_;  // job running on each GPU, or kNotRunning
  std::vector<std::size_t> order_;      // each job's place in admission order
  Agenda agenda_;
  FlowSet flows_;
  std::size_t next_submit_ = 0;
  std::size_t finished_ = 0;
  bool dirty_ = false;
  double next_backfill_ = 0;
  bool placement_blocked_ = false;  // reported by the last scheduling pass
  bool backfill_pending_ = false;
};

}  // namespace

DriverOutput run_jobs(const LoadedPlatform& platform, std::span<const Job> jobs,
                      std::span<const std::size_t> admitted, const PlacementPolicy& policy,
                      const SimulationConfig& config, std::vector<JobOutcome>& outcomes,
                      const ProgressFn& progress) {
  auto* engine = s4u::Engine::get_instance();
  Driver driver(platform, jobs, admitted, policy, config, outcomes, progress);
  s4u::Actor::create("nvlsim-driver", platform.gpu_hosts.front(), std::ref(driver));
  engine->run();
  return driver.take_output();
}

}  // namespace nvlsim
