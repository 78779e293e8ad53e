#pragma once
// How jobs run: the knobs of the job model that are not part of the platform.

#include <vector>

#include "models/collective.hpp"
#include "workloads/job_class.hpp"

namespace nvlsim {

struct SimulationConfig {
  double comm_fraction =
      0.3;              // share of a job's trace run time spent communicating in its reference placement
  int comm_rounds = 1;  // compute/communicate rounds a job's run is split into
  bool walltime_kill = true;  // kill jobs at their time limit, as Slurm does
  Collective collective = Collective::all_reduce;
  // The run's job classes, indexed by Job::job_class, explicit --comm-fraction/--collective already applied
  // to each; comm_fraction and collective above are the values given on the command line (or defaults).
  std::vector<JobClass> classes;
  double bf_interval = 30;  // s between backfill passes (Slurm's bf_interval); 0 = at every change
};

}  // namespace nvlsim
