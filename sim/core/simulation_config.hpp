#pragma once
// How jobs run: the knobs of the job model that are not part of the platform.

#include <cstdint>
#include <string>
#include <vector>

#include "models/collective.hpp"
#include "models/failure_model.hpp"
#include "schedulers/job_request.hpp"
#include "sim/core/gpu_sharing.hpp"
#include "workloads/job_class.hpp"

namespace nvlsim {

enum class FailureMode { none, model, replay };

struct FailureConfig {
  FailureMode mode = FailureMode::none;
  FailureModel model;                // mode model
  std::vector<FailureEvent> replay;  // mode replay, sorted by time
  std::uint64_t seed = 1;
  std::string source;  // what --failures named, for run.json
};

// What happens to a job a failure kills: Slurm requeues it, and it resumes from its last checkpoint.
struct RequeueConfig {
  double checkpoint_interval = 1800;  // s of the job's work between checkpoints; 0 = none, restart from 0
  double restart_overhead = 300;      // s a restarted attempt spends before working (reload, re-init)
  int max_requeue = 5;                // Slurm's MaxBatchRequeue; beyond it the job ends killed
};

struct SimulationConfig {
  double comm_fraction =
      0.3;              // share of a job's trace run time spent communicating in its reference placement
  int comm_rounds = 1;  // compute/communicate rounds a job's run is split into
  bool walltime_kill = true;  // kill jobs at their time limit, as Slurm does
  // How a trace job's GPU count becomes what it asks Slurm for (--request-shape), and the CPU cores it
  // asks per GPU (--cpus-per-gpu; 0 = Slurm's default, one core on each tray it uses).
  RequestShaping request_shaping = RequestShaping::auto_;
  int cpus_per_gpu = 0;
  // Whether fractional jobs ask for shares of a GPU (--gpu-sharing, --shards-per-gpu); default none.
  SharingConfig sharing;
  Collective collective = Collective::all_reduce;
  // The run's job classes, indexed by Job::job_class, explicit --comm-fraction/--collective already applied
  // to each; comm_fraction and collective above are the values given on the command line (or defaults).
  std::vector<JobClass> classes;
  double bf_interval = 30;  // s between backfill passes (Slurm's bf_interval); 0 = at every change
  FailureConfig failures;
  RequeueConfig requeue;
};

}  // namespace nvlsim
