#pragma once
// The cluster's state over time under one policy: one sample at every change of state, holding until the
// next sample. The simulator records them; analysis integrates them into time-weighted metrics.

namespace nvlsim {

struct StateSample {
  double time = 0;         // s; the state holds from here to the next sample (or the makespan's end)
  int busy_gpus = 0;       // running a job
  int free_gpus = 0;       // up, not allocated, not held by an exclusive job
  int down_gpus = 0;       // failed, awaiting repair
  int held_idle_gpus = 0;  // up and unallocated but closed by an exclusive (whole-block) job
  // Idle capacity (free, held, and the free shares of shared GPUs) while a queued job fits by count but
  // cannot be placed, in GPUs.
  double stranded_gpus = 0;
  int failure_stranded_gpus = 0;  // healthy idle GPUs the policy cannot use because of a failure nearby
  int queued_jobs = 0;
  long queued_gpus = 0;
  double nvlink_util = 0;        // bytes/s carried on NVLink ports / their capacity, 0-1
  double ib_util = 0;            // bytes/s carried on InfiniBand NIC links / their capacity, 0-1
  double fgd_fragment_gpus = 0;  // FGD: expected free GPUs unusable by a job drawn from the trace's sizes
  int largest_free_run = 0;      // most consecutive idle trays (all GPUs free) inside any one domain
  int idle_domains = 0;          // domains whose trays are all idle
  // Free shares of the GPUs that share jobs hold part of (not in free_gpus, counted in busy_gpus), in GPUs.
  double shared_free_gpus = 0;
};

}  // namespace nvlsim
