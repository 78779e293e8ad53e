#pragma once
// A job's run on one allocation (an attempt), and what the job keeps from attempt to attempt.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/collective.hpp"
#include "platforms/platform_loader.hpp"
#include "schedulers/allocation.hpp"
#include "sim/simulation_config.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

// One attempt of a job on its allocation. It has `work` seconds of the job's trace run time to do (all
// of it, or what its last checkpoint left), split into rounds of computation then communication.
struct Attempt {
  Allocation allocation;
  double start = 0;
  double work = 0;
  double work_started = 0;  // after the restart overhead
  double round_started = 0;
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
  bool running = false;

  // The work done by `now` out of `rounds`: whole rounds, the computation of the current one as it
  // goes, and its communication by `comm_share`, the share of the round's collective done.
  double work_done(double now, double comm_share, int rounds) const;
};

// What a job carries from attempt to attempt.
struct JobProgress {
  std::uint32_t attempt = 0;  // attempts started
  double saved_work = 0;      // s of trace run time checkpointed
  double comm_time = 0;       // s communicating, over completed rounds of all attempts
  double ideal_time = 0;      // s the same would take in one ideal NVLink domain

  // The work saved once an attempt that did `done` more ends: checkpoints fall every `interval` s of
  // the job's work over all attempts (0: none), and never beyond its `run_time`.
  double checkpointed(double done, double interval, double run_time) const;
};

// Splits the attempt's work into rounds and plans one round's collective on its allocation (set before
// the call; the job runs on all of its GPUs). The message is sized so that the job's reference placement
// (its GPUs packed into as few domains as possible) communicates for exactly the job class's share of the
// work; the actual placement then takes what the fabric makes of it.
void plan_rounds(const Job& job, const LoadedPlatform& platform, const SimulationConfig& config, Attempt& a);

}  // namespace nvlsim
