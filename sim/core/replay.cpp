#include "sim/core/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "models/failure_model.hpp"
#include "sim/core/agenda.hpp"
#include "sim/core/hardware_health.hpp"
#include "sim/core/running_set.hpp"
#include "sim/core/scheduler.hpp"
#include "sim/core/state_sampler.hpp"

namespace nvlsim {

namespace {

FailureSource make_failure_source(const FailureConfig& f, const PlatformSpec& platform) {
  switch (f.mode) {
    case FailureMode::none:
      return {};
    case FailureMode::model:
      return FailureSource(
          FailureGenerator(f.model, platform.shape, platform.fabric.nvlink_links_per_gpu, f.seed));
    case FailureMode::replay:
      return FailureSource(f.replay);
  }
  return {};
}

// Wires the parts together and owns the time line: arrivals, the agenda's events, finished flows and
// failures, each turned into calls on the part that owns what it changes.
class Replay {
 public:
  Replay(const PlatformSpec& platform, std::span<const Job> jobs, std::span<const std::size_t> admitted,
         const PlacementPolicy& policy, const SimulationConfig& config, std::vector<JobOutcome>& outcomes,
         const ProgressFn& progress, Network& network)
      : jobs_(jobs),
        admitted_(admitted),
        policy_(policy),
        config_(config),
        network_(network),
        scheduler_(jobs, admitted, policy, config, platform.shape),
        sampler_(platform.shape, platform.fabric, scheduler_.requests(), admitted),
        running_(platform.shape, config.sharing, jobs.size(), sampler_, policy.tray_groups()),
        lifecycle_(platform, jobs, admitted.size(), config, outcomes, progress, agenda_, network, running_),
        health_(platform, network),
        failure_source_(make_failure_source(config.failures, platform)) {}

  DriverOutput run() {
    pull_failure();
    record_state();
    while (lifecycle_.finished() < admitted_.size()) {
      for (const Flow& f : network_.take_finished()) lifecycle_.flow_done(f.job);
      const double now = network_.now();
      while (next_submit_ < admitted_.size() &&
             jobs_[admitted_[next_submit_]].submit_time <= now + kTimeSlack) {
        scheduler_.submit(admitted_[next_submit_++]);
        dirty_ = true;
      }
      while (agenda_.next_time() <= now + kTimeSlack) handle(agenda_.pop());
      if (lifecycle_.take_released()) dirty_ = true;
      if (dirty_) {
        schedule(now);
        record_state();
      }
      wait_for_next_change();
    }
    record_state();
    return {sampler_.take(), lifecycle_.take_killed(), std::move(rack_failures_)};
  }

 private:
  void wait_for_next_change() {
    if (lifecycle_.finished() == admitted_.size()) return;
    double next = agenda_.next_time();
    if (next_submit_ < admitted_.size()) next = std::min(next, jobs_[admitted_[next_submit_]].submit_time);
    if (next <= network_.now() + kTimeSlack) return;
    if (network_.idle() && next == std::numeric_limits<double>::infinity())
      throw std::logic_error("nvlsim: jobs wait but nothing runs or arrives");
    network_.wait_until(next);
  }

  void schedule(double now) {
    dirty_ = false;
    const Scheduler::Pass pass = scheduler_.pass(now, running_);
    for (const auto& d : pass.starts) lifecycle_.start(d.job, d.allocation);
    if (pass.wake_at) agenda_.push(*pass.wake_at, 0, EventKind::backfill);
  }

  void record_state() {
    const auto carried = network_.take_carried();
    const auto& down_trays = health_.down_trays();
    const int stranded = down_trays.empty() ? 0 : policy_.failure_stranded_gpus(running_.state(), down_trays);
    sampler_.record(network_.now(), running_.state(), static_cast<int>(scheduler_.queued()),
                    scheduler_.queued_gpus(), running_.busy_gpus(), scheduler_.placement_blocked(), stranded,
                    carried[0], carried[1]);
  }

  void handle(const Event& e) {
    switch (e.kind) {
      case EventKind::backfill:
        scheduler_.woke();
        dirty_ = true;
        return;
      case EventKind::failure:
        fail(e.index);
        return;
      case EventKind::repair:
        running_.set_down(health_.repair(failures_[e.index]), false);
        dirty_ = true;
        return;
      default:
        lifecycle_.on_event(e);
    }
  }

  // Keeps the next failure of the source in the agenda.
  void pull_failure() {
    if (auto f = failure_source_.next()) {
      failures_.push_back(*f);
      agenda_.push(f->time, failures_.size() - 1, EventKind::failure);
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
    agenda_.push(f.time + f.duration, index, EventKind::repair);
    if (f.component == Component::rack) rack_failures_.push_back(f.time);
    const std::vector<int> down = health_.fail(f);
    const std::vector<std::size_t> victims = running_.owners(down);
    if (!victims.empty()) {
      const std::string reason = fmt::format("{} {} failed", to_string(f.component), f.id);
      for (std::size_t job : victims)
        if (lifecycle_.kill(job, reason)) scheduler_.requeue(job);
    }
    running_.set_down(down, true);
    dirty_ = true;
  }

  std::span<const Job> jobs_;
  std::span<const std::size_t> admitted_;
  const PlacementPolicy& policy_;
  const SimulationConfig& config_;
  Network& network_;
  Agenda agenda_;
  Scheduler scheduler_;  // before sampler_, which reads its requests
  StateSampler sampler_;
  RunningSet running_;
  JobLifecycle lifecycle_;
  HardwareHealth health_;
  FailureSource failure_source_;
  std::vector<FailureEvent> failures_;  // drawn so far; failure and repair events index it
  std::vector<double> rack_failures_;   // times of the whole-rack failures applied
  std::size_t next_submit_ = 0;
  bool dirty_ = false;
};

}  // namespace

DriverOutput replay(const PlatformSpec& platform, std::span<const Job> jobs,
                    std::span<const std::size_t> admitted, const PlacementPolicy& policy,
                    const SimulationConfig& config, std::vector<JobOutcome>& outcomes,
                    const ProgressFn& progress, Network& network) {
  return Replay(platform, jobs, admitted, policy, config, outcomes, progress, network).run();
}

}  // namespace nvlsim
