#pragma once
// How jobs run: the knobs of the job model that are not part of the platform.

#include "models/collective.hpp"

namespace nvlsim {

struct SimulationConfig {
  double comm_fraction =
      0.3;              // share of a job's trace run time spent communicating in its reference placement
  int comm_rounds = 1;  // compute/communicate rounds a job's run is split into
  bool walltime_kill = true;  // kill jobs at their time limit, as Slurm does
  Collective collective = Collective::all_reduce;
};

}  // namespace nvlsim
