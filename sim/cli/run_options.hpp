#pragma once
// Options of `nvlsim run` (the default command): what a replay reads, how jobs run, what it writes.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cost_model.hpp"
#include "schedulers/slurm_version.hpp"
#include "sim/core/simulation_config.hpp"

namespace nvlsim {

struct RunOptions {
  std::optional<std::string> platform;  // default: built-in nvl72x8
  std::optional<std::string> trace;     // default: built-in mix
  std::vector<std::string> policies;    // from every --policy; per-gpu,block,sub-block when none and no file
  std::optional<std::string> policy_file;             // --policy-file FILE.json
  std::optional<std::string> topology;                // Slurm topology.conf / topology.yaml
  SlurmVersion slurm_version = kDefaultSlurmVersion;  // --slurm-version: whose placement rules
  std::string out_dir = "nvlsim-out";
  std::uint64_t seed = 1;
  bool quiet = false;
  bool skip_bad_lines = false;
  int parallel = 2;
  double sample_step = 0;  // --sample: s between timeseries.csv rows; 0 = every change
  bool plots = false;      // --plots: render PNGs with analysis/plot.py
  CostModel cost;
  RackCostFlags rack_cost;  // given rack price and power; else the platform's system's
  SimulationConfig sim;
  bool comm_fraction_given = false;         // --comm-fraction overrides every class's value
  bool collective_given = false;            // --collective overrides every communicating class's one
  std::optional<std::string> classes_file;  // --classes FILE.json (default: built-in classes)
  std::optional<int> procs_per_gpu;         // --procs-per-gpu K: a job needs ceil(processors / K) GPUs
  bool fit = false;                         // --fit: choose K so the trace's largest job fits
  bool write_swf = false;                   // --write-swf: each policy's schedule as SWF into --out
  std::optional<std::string> failures;      // --failures llama3 | FILE.json (model) | FILE.csv (replay)
  double failure_rate_scale = 1;            // --failure-rate-scale: multiplies every model failure rate
  // --default-time: time limit of jobs whose requested time is unknown (Slurm's DefaultTime); infinity =
  // no limit, as a partition without DefaultTime and with MaxTime=INFINITE (Slurm's defaults) gives.
  double default_time = std::numeric_limits<double>::infinity();
  std::vector<std::string> engine_args;  // SimGrid's own --cfg=... then --log=..., each in the order given
};

// Declares `run` and its options on `app`, filling `o` as they are parsed; cross-option checks run once
// the command is parsed. Throws InputError "nvlsim: --flag: what is wrong".
CLI::App* add_run_command(CLI::App& app, RunOptions& o);

}  // namespace nvlsim
