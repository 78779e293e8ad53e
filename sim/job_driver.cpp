#include "sim/job_driver.hpp"

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <queue>
#include <stdexcept>

#include "models/collective.hpp"
#include "sim/flow_endpoints.hpp"
#include "sim/state_sampler.hpp"

namespace nvlsim {

namespace {

namespace s4u = simgrid::s4u;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Events this close to the clock are due: the clock moves by sums of durations, which round.
constexpr double kTimeSlack = 1e-9;

// One attempt of a job on its allocation.
struct Attempt {
  Allocation allocation;
  std::vector<std::vector<int>> domain_gpus;  // the job's GPUs grouped by domain, in GPU order
  std::vector<CollectiveStep> steps;          // one round's communication
  std::vector<double> step_times;             // each step's uncontended time
  double round_comm_uncontended = 0;          // their sum
  bool communicating = false;
  double compute_per_round = 0;
  double ideal_comm_per_round = 0;  // the same collective with all GPUs in one ideal NVLink domain
  int round = 0;
  std::size_t step = 0;
  int flows_left = 0;
  double step_started = 0;
  double round_comm_time = 0;
  double comm_time_done = 0;   // over completed rounds
  double ideal_time_done = 0;  // over completed rounds
  bool running = false;
};

enum class EventKind { compute_done, time_limit, backfill };

// Bookkeeping of one SimGrid transfer, parallel to the list of comms waited on.
struct FlowRecord {
  std::size_t job = 0;
  Plane plane = Plane::nvlink;
  int multiplicity = 1;       // GPUs or NICs the flow stands for
  double size = 0;            // bytes
  double last_remaining = 0;  // bytes, at the last state record
};

struct Event {
  double time;
  std::uint64_t seq;  // ties resolve in scheduling order, so runs are reproducible
  std::size_t job;
  EventKind kind;
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

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
        state_(platform.spec.shape),
        sampler_(platform.spec.shape, platform.spec.fabric, jobs, admitted),
        attempts_(jobs.size()),
        running_index_(jobs.size(), kNotRunning) {}

  void operator()() {
    record_state();
    while (finished_ < admitted_.size()) {
      const double now = s4u::Engine::get_clock();
      while (next_submit_ < admitted_.size() &&
             jobs_[admitted_[next_submit_]].submit_time <= now + kTimeSlack)
        submit(admitted_[next_submit_++]);
      while (!agenda_.empty() && agenda_.top().time <= now + kTimeSlack) {
        const Event e = agenda_.top();
        agenda_.pop();
        handle(e);
      }
      if (dirty_) {
        schedule();
        record_state();
      }
      wait_for_next_change();
    }
    record_state();
    samples_ = sampler_.take();
  }

  std::vector<StateSample> take_samples() { return std::move(samples_); }

 private:
  static constexpr std::size_t kNotRunning = std::numeric_limits<std::size_t>::max();

  double next_time() const {
    double t = agenda_.empty() ? kInfinity : agenda_.top().time;
    if (next_submit_ < admitted_.size()) t = std::min(t, jobs_[admitted_[next_submit_]].submit_time);
    return t;
  }

  void wait_for_next_change() {
    if (finished_ == admitted_.size()) return;
    const double now = s4u::Engine::get_clock();
    const double next = next_time();
    if (next <= now + kTimeSlack) return;
    if (comms_.empty()) {
      if (next == kInfinity) throw std::logic_error("nvlsim: jobs wait but nothing runs or arrives");
      s4u::this_actor::sleep_until(next);
      return;
    }
    const double timeout = next == kInfinity ? -1.0 : next - now;
    const ssize_t done = s4u::Activity::wait_any_for(comms_, timeout);
    if (done >= 0) flow_done(static_cast<std::size_t>(done));
  }

  void push(double time, std::size_t job, EventKind kind) { agenda_.push({time, seq_++, job, kind}); }

  // Bytes the planes carried since the last record: finished flows were counted as they ended.
  void record_state() {
    for (std::size_t i = 0; i < comms_.size(); ++i) {
      FlowRecord& f = flows_[i];
      const double remaining = comms_[i]->get_remaining();
      carried_[static_cast<int>(f.plane)] += (f.last_remaining - remaining) * f.multiplicity;
      f.last_remaining = remaining;
    }
    sampler_.record(s4u::Engine::get_clock(), state_, queue_, busy_gpus_, placement_blocked_, 0, carried_[0],
                    carried_[1]);
    carried_ = {0, 0};
  }

  void submit(std::size_t job) {
    queue_.push_back({job, jobs_[job].gpus, jobs_[job].time_limit});
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
    const auto decisions = easy_backfill(now, state_, queue_, running_, policy_, bf, &report);
    placement_blocked_ = report.placement_blocked;
    for (const auto& d : decisions) start(d.job, d.allocation, now);
    std::erase_if(queue_, [this](const QueuedJob& q) { return attempts_[q.job].running; });
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
    running_.push_back({job, now + j.time_limit, allocation});

    Attempt& a = attempts_[job];
    a = Attempt{};
    a.allocation = allocation;
    a.running = true;
    a.domain_gpus = group_by_domain(allocation.gpus, platform_.spec.shape);
    plan_communication(j, a);

    JobOutcome& out = outcomes_[job];
    out.start = now;
    out.gpus = allocation.gpus;
    out.domains = static_cast<int>(a.domain_gpus.size());
    if (config_.walltime_kill)
      push(now + j.time_limit + kTimeSlack * std::max(1.0, j.time_limit), job, EventKind::time_limit);
    begin_round(job);
  }

  // Message size per round, calibrated so that the reference placement communicates for exactly the
  // job class's comm_fraction of the trace run time; then the actual placement's plan for that message.
  void plan_communication(const Job& j, Attempt& a) const {
    const auto& fabric = platform_.spec.fabric;
    const int rounds = config_.comm_rounds;
    const JobClass* cls = config_.classes.empty() ? nullptr : &config_.classes.at(j.job_class);
    const Collective collective = cls ? cls->collective : config_.collective;
    const double fraction = cls ? (cls->communicates ? cls->comm_fraction : 0.0) : config_.comm_fraction;
    const auto plan = [collective, &fabric](std::span<const int> counts, double message) {
      return plan_collective(collective, counts, message, fabric.nvlink_sharp);
    };
    const auto reference = reference_placement(j.gpus, platform_.spec.shape.gpus_per_domain());
    const double fixed = uncontended_time(plan(reference, 0.0), fabric);
    const double per_byte = uncontended_time(plan(reference, 1.0), fabric) - fixed;
    const double target = fraction * j.run_time / rounds;
    if (per_byte <= 0 || target <= fixed) {
      a.compute_per_round = j.run_time / rounds;
      return;
    }
    const double message = (target - fixed) / per_byte;
    a.compute_per_round = (1.0 - fraction) * j.run_time / rounds;
    std::vector<int> counts;
    for (const auto& g : a.domain_gpus) counts.push_back(static_cast<int>(g.size()));
    a.steps = plan(counts, message);
    for (const auto& step : a.steps) {
      a.step_times.push_back(uncontended_time(std::span(&step, 1), fabric));
      a.round_comm_uncontended += a.step_times.back();
    }
    const int one_domain[] = {j.gpus};
    a.ideal_comm_per_round = uncontended_time(plan(one_domain, message), fabric);
  }

  void begin_round(std::size_t job) {
    Attempt& a = attempts_[job];
    if (a.round == config_.comm_rounds) {
      finish(job, FinalState::completed_successfully, "");
      return;
    }
    push(s4u::Engine::get_clock() + a.compute_per_round, job, EventKind::compute_done);
  }

  void handle(const Event& e) {
    if (e.kind == EventKind::backfill) {
      backfill_pending_ = false;
      dirty_ = true;
      return;
    }
    Attempt& a = attempts_[e.job];
    if (!a.running) return;  // the job ended before this event came due
    switch (e.kind) {
      case EventKind::compute_done:
        a.step = 0;
        a.round_comm_time = 0;
        a.communicating = true;
        begin_step(e.job);
        break;
      case EventKind::time_limit:
        // The event fires a hair after the limit so that jobs ending exactly at it complete; Slurm
        // kills at the limit itself, and that is the end we report.
        cancel_flows(e.job);
        finish(e.job, FinalState::completed_walltime_reached, "killed at its time limit",
               outcomes_[e.job].start + jobs_[e.job].time_limit);
        break;
      case EventKind::backfill:
        break;
    }
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
    a.comm_time_done += a.round_comm_time;
    if (!a.steps.empty()) a.ideal_time_done += a.ideal_comm_per_round;
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
    comms_.push_back(s4u::Comm::sendto_async(from, to, size));
    const double bytes = static_cast<double>(size);
    flows_.push_back({job, f.plane, f.multiplicity, bytes, bytes});
    ++attempts_[job].flows_left;
  }

  void remove_comm(std::size_t i) {
    comms_[i] = std::move(comms_.back());
    comms_.pop_back();
    flows_[i] = flows_.back();
    flows_.pop_back();
  }

  void flow_done(std::size_t i) {
    const std::size_t job = flows_[i].job;
    carried_[static_cast<int>(flows_[i].plane)] += flows_[i].last_remaining * flows_[i].multiplicity;
    remove_comm(i);
    Attempt& a = attempts_[job];
    if (--a.flows_left > 0) return;
    a.round_comm_time += s4u::Engine::get_clock() - a.step_started;
    ++a.step;
    begin_step(job);
  }

  // Stops the job's transfers, crediting the part of the current round's communication already done
  // to its bandwidth figures: completed steps in full, the current one by the mean share of bytes sent.
  void cancel_flows(std::size_t job) {
    Attempt& a = attempts_[job];
    double sent = 0;
    double flows = 0;
    for (std::size_t i = comms_.size(); i-- > 0;) {
      if (flows_[i].job != job) continue;
      const double remaining = comms_[i]->get_remaining();
      sent += 1.0 - remaining / flows_[i].size;
      carried_[static_cast<int>(flows_[i].plane)] +=
          (flows_[i].last_remaining - remaining) * flows_[i].multiplicity;
      flows += 1;
      comms_[i]->cancel();
      remove_comm(i);
    }
    a.flows_left = 0;
    if (!a.communicating || a.round_comm_uncontended <= 0) return;
    double done = 0;
    for (std::size_t k = 0; k < a.step; ++k) done += a.step_times[k];
    if (flows > 0) done += a.step_times[a.step] * sent / flows;
    a.comm_time_done += a.round_comm_time + (s4u::Engine::get_clock() - a.step_started);
    a.ideal_time_done += a.ideal_comm_per_round * done / a.round_comm_uncontended;
  }

  void finish(std::size_t job, FinalState final_state, const char* reason,
              double end = s4u::Engine::get_clock()) {
    Attempt& a = attempts_[job];
    a.running = false;
    state_.release(a.allocation);
    sampler_.touch(a.allocation);
    busy_gpus_ -= static_cast<int>(a.allocation.gpus.size());
    const std::size_t pos = running_index_[job];
    running_[pos] = std::move(running_.back());
    running_index_[running_[pos].job] = pos;
    running_.pop_back();
    running_index_[job] = kNotRunning;

    JobOutcome& out = outcomes_[job];
    out.state = final_state;
    out.finish = end;
    out.reason = reason;
    if (a.comm_time_done > 0) out.bw_efficiency = a.ideal_time_done / a.comm_time_done;
    dirty_ = true;
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

  ClusterState state_;
  StateSampler sampler_;
  std::vector<StateSample> samples_;
  int busy_gpus_ = 0;
  std::array<double, 2> carried_{0, 0};  // bytes since the last record, by Plane
  std::vector<Attempt> attempts_;
  std::vector<QueuedJob> queue_;
  std::vector<RunningJob> running_;
  std::vector<std::size_t> running_index_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> agenda_;
  std::vector<s4u::ActivityPtr> comms_;
  std::vector<FlowRecord> flows_;  // parallel to comms_
  std::size_t next_submit_ = 0;
  std::size_t finished_ = 0;
  std::uint64_t seq_ = 0;
  bool dirty_ = false;
  double next_backfill_ = 0;
  bool placement_blocked_ = false;  // reported by the last scheduling pass
  bool backfill_pending_ = false;
};

}  // namespace

std::vector<StateSample> run_jobs(const LoadedPlatform& platform, std::span<const Job> jobs,
                                  std::span<const std::size_t> admitted, const PlacementPolicy& policy,
                                  const SimulationConfig& config, std::vector<JobOutcome>& outcomes,
                                  const ProgressFn& progress) {
  auto* engine = s4u::Engine::get_instance();
  Driver driver(platform, jobs, admitted, policy, config, outcomes, progress);
  s4u::Actor::create("nvlsim-driver", platform.gpu_hosts.front(), std::ref(driver));
  engine->run();
  return driver.take_samples();
}

}  // namespace nvlsim
