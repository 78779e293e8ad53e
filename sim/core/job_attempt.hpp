#pragma once
// A job's run on one allocation (an attempt), and what the job keeps from attempt to attempt.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/collective.hpp"
#include "platforms/platform_spec.hpp"
#include "sim/core/reference_costs.hpp"
#include "sim/core/simulation_config.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

// No planned flow is larger: SimGrid sizes a transfer in a 64-bit integer, and a flow past 2^63 bytes
// would wrap (docs/model.md, "Very long jobs").
inline constexpr double kMaxFlowBytes = 0x1p62;
// An attempt that would need more rounds than this to keep its flows under kMaxFlowBytes is refused.
inline constexpr int kMaxRounds = 1'000'000;

// One attempt of a job on its allocation. It has `work` seconds of the job's trace run time to do (all
// of it, or what its last checkpoint left), split into `rounds` rounds of computation then communication.
struct Attempt {
  double start = 0;
  double work = 0;
  double work_started = 0;                   // after the restart overhead
  std::vector<std::vector<int>> group_gpus;  // the job's GPUs by NVLink group (group_by_zone), in GPU order
  std::vector<GpuGroup> groups;              // their sizes and domains
  int rounds = 1;                            // the run's comm_rounds, or more for very long jobs
  std::vector<CollectiveStep> steps;         // one round's communication
  std::vector<double> step_times;            // each step's uncontended time
  double round_comm_uncontended = 0;         // their sum
  bool communicating = false;
  double compute_per_round = 0;
  double ideal_comm_per_round = 0;  // the same collective with all GPUs in one ideal NVLink domain
  int round = 0;
  std::size_t step = 0;
  int flows_left = 0;
  double step_started = 0;
  double round_comm_time = 0;
  // The current round's computation advances at `speed` (below 1 on a GPU shared with other jobs,
  // models/sharing_interference.hpp) since `speed_since`, with `computed` s of it done before.
  double speed = 1;
  double speed_since = 0;
  double computed = 0;
  double compute_due = 0;  // when the round's computation ends at today's speed: its live compute_done

  // The current round's computation done by `now`, in s of the job's trace run time.
  double computed_by(double now) const { return computed + (now - speed_since) * speed; }

  // The work done by `now`: whole rounds, the computation of the current one as it goes, and its
  // communication by `comm_share`, the share of the round's collective done.
  double work_done(double now, double comm_share) const;
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

// The job's GPUs (ascending) grouped one NVLink switch hop apart: by zone, which is the domain on systems
// without zones.
std::vector<std::vector<int>> group_by_zone(const std::vector<int>& gpus, const ClusterShape& shape);
// Their sizes, and the index of each group's domain among the job's domains.
std::vector<GpuGroup> gpu_groups(const std::vector<std::vector<int>>& group_gpus, const ClusterShape& shape);

// Splits the attempt's work into rounds and plans one round's collective on the job's GPUs (a.groups,
// set before the call; the job runs on all of them). The message is sized so that the job's reference
// placement (its GPUs packed into as few domains as possible) communicates for exactly the job class's
// share of the work; the actual placement then takes what the fabric makes of it. The attempt gets
// config.comm_rounds rounds, or as many more as keep every flow within kMaxFlowBytes; throws InputError
// when that needs more than kMaxRounds. `references` holds the reference placement's costs on `platform`.
void plan_rounds(const Job& job, const PlatformSpec& platform, const SimulationConfig& config,
                 ReferenceCosts& references, Attempt& a);

}  // namespace nvlsim
