#pragma once
// `nvlsim sweep run-one DIR I`: run I of the plan in DIR/sweep-grid.json, in DIR/runs/ID: the platform
// and the trace generated first when the cell's platform.* or mix.* settings ask for them, then
// `nvlsim run` with the cell's settings, its seed, one policy at a time and --out the run's folder. Its
// stdout and stderr go to stdout.txt and error.txt there; run-done.json is written last when the run
// succeeded, and error.txt then removed.

#include "sim/cli/sweep_command.hpp"

namespace nvlsim {

// Returns the run's exit status. Throws InputError for a bad plan or index, and the run's own errors.
int run_one_command(const SweepOptions& options);

}  // namespace nvlsim
