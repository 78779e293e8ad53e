#pragma once
// Each job's life from start to end: an attempt on its allocation, split into rounds of computation
// then a collective whose steps run as flows; a time limit or a failure may end it early.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "analysis/records/attempt_record.hpp"
#include "analysis/records/job_outcome.hpp"
#include "platforms/platform_spec.hpp"
#include "schedulers/allocation.hpp"
#include "sim/core/agenda.hpp"
#include "sim/core/job_attempt.hpp"
#include "sim/core/network.hpp"
#include "sim/core/running_set.hpp"
#include "sim/core/simulation_config.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

// Called now and then with the number of jobs finished and the simulated time.
using ProgressFn = std::function<void(std::size_t jobs_done, double sim_time)>;

class JobLifecycle {
 public:
  // Jobs run on `running` (which they join at start and leave at their end), time their rounds with
  // `agenda` and send their collectives over `network`; outcomes[j] gets job j's last attempt.
  JobLifecycle(const PlatformSpec& platform, std::span<const Job> jobs, std::size_t admitted,
               const SimulationConfig& config, std::vector<JobOutcome>& outcomes, const ProgressFn& progress,
               Agenda& agenda, Network& network, RunningSet& running);

  void start(std::size_t job, const Allocation& allocation);
  // A job's event (work_start, compute_done, time_limit) came due.
  void on_event(const Event& event);
  // One of the job's flows finished.
  void flow_done(std::size_t job);
  // A failure ends the attempt; the job keeps the work up to its last checkpoint. Returns true when the
  // job is to be requeued, false when it ended because it reached the requeue limit.
  bool kill(std::size_t job, const std::string& reason);

  std::size_t finished() const { return finished_; }
  // Whether a job left the running set since the last call.
  bool take_released() { return std::exchange(released_, false); }
  // The attempts failures killed, in the order they were killed.
  std::vector<AttemptRecord> take_killed() { return std::move(killed_); }

 private:
  void push(double time, std::size_t job, EventKind kind);
  // The running attempt of a job that runs.
  Attempt& attempt(std::size_t job) { return attempts_[slot_of_[job]]; }
  void begin_round(std::size_t job);
  void schedule_compute_done(std::size_t job, Attempt& a);
  // 1 for whole GPUs; below 1 for shares of a GPU other running jobs share too.
  double sharing_speed(const Allocation& allocation) const;
  void update_speeds(const std::vector<int>& gpus, std::size_t except);
  void begin_step(std::size_t job);
  // Adds the flow to launches_ unless it carries no bytes; counts its bytes in either case.
  void plan_launch(std::size_t job, const PlannedFlow& f);
  double cancel_flows(std::size_t job);
  void release(std::size_t job);
  void finish(std::size_t job, FinalState final_state, std::string reason, double end);

  const PlatformSpec& platform_;
  std::span<const Job> jobs_;
  std::size_t admitted_;
  const SimulationConfig& config_;
  std::vector<JobOutcome>& outcomes_;
  const ProgressFn& progress_;
  Agenda& agenda_;
  Network& network_;
  RunningSet& running_;
  ReferenceCosts references_;
  // The running jobs' attempts, in slots a job takes at its start and gives back at its end: memory for
  // the jobs running at once, not for every job of the trace (232 bytes a job, 232 MB for a million).
  std::vector<Attempt> attempts_;
  std::vector<std::uint32_t> slot_of_;     // by job index: its attempt's slot while it runs
  std::vector<std::uint32_t> free_slots_;  // slots of ended attempts, the last freed taken first
  std::vector<JobProgress> progress_of_;   // by job index
  std::vector<AttemptRecord> killed_;
  std::vector<Launch> launches_;  // the step being started (kept to reuse its buffer)
  std::size_t finished_ = 0;
  bool released_ = false;
};

}  // namespace nvlsim
