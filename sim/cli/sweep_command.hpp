#pragma once
// `nvlsim sweep GRID --out DIR`: every run of a grid (docs/sweep.md), locally then the tidy tables, or
// with --slurm as a Slurm job array;
// `nvlsim sweep collect DIR`: the tables from whatever finished; `nvlsim sweep run-one DIR I`: one run of
// the plan in DIR, as the sweep starts it.

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

namespace nvlsim {

struct SweepOptions {
  std::string grid;
  std::string out;
  int jobs = 0;  // 0: one per core
  bool quiet = false;
  bool resume = true;
  bool plots = false;      // then DIR/plots/ from the tables, with analysis/sweep_plot.py
  bool slurm = false;      // submit a Slurm job array instead of running here
  std::string slurm_opts;  // more sbatch options
  int max_parallel = 0;    // array tasks at once; 0: as Slurm allows
  bool wait = false;       // wait for the array, then collect
  std::string dir;         // collect, run-one
  std::size_t index = 0;   // run-one
};

struct SweepCommands {
  CLI::App* sweep;
  CLI::App* collect;
  CLI::App* run_one;
};

// Declares `sweep` and its subcommands `collect` and `run-one` on `app`, filling `o`.
SweepCommands add_sweep_command(CLI::App& app, SweepOptions& o);

// Return the exit status: 1 when a run failed, (collect) is not finished or --plots failed. Throw
// InputError for a bad grid or plan, or with --plots when sweep_plot.py is not installed.
int sweep_command(const SweepOptions& options);
int collect_command(const SweepOptions& options);

}  // namespace nvlsim
