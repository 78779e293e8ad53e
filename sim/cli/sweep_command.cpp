#include "sim/cli/sweep_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "analysis/plot_runner.hpp"
#include "models/input_error.hpp"
#include "sim/cli/number_option.hpp"
#include "sim/cli/sweep_keys.hpp"
#include "sim/cli/sweep_steps.hpp"
#include "sim/sweep/local_runner.hpp"
#include "sim/sweep/plan_file.hpp"
#include "sim/sweep/slurm_array.hpp"
#include "sim/sweep/sweep_collect.hpp"

namespace nvlsim {

namespace fs = std::filesystem;

namespace {

// Why a run has not finished: the first line of its error.txt, or that it has not run.
std::string unfinished_text(const fs::path& dir, const SweepRun& run) {
  const fs::path error = error_path(run_dir(dir, run));
  std::ifstream in(error);
  std::string line;
  if (in && std::getline(in, line)) return fmt::format("failed: {} ({})", line, error.string());
  return "not run";
}

std::string written(const fs::path& dir) {
  return fmt::format("{}, {}", (dir / "sweep.csv").string(), (dir / "sweep_summary.csv").string());
}

// Checked before any run, so that a missing script is not found only once the sweep has run.
void check_plot_script(const SweepOptions& options) {
  if (options.plots && !fs::exists(sweep_plot_script()))
    throw InputError(fmt::format("--plots: {} not found (it is installed in share/nvlsim beside bin/)",
                                 sweep_plot_script()));
}

// With --plots, DIR/plots/ from the tables just written; `status`, or 1 when plotting failed (the script
// has said why on stderr).
int with_plots(const fs::path& dir, const SweepOptions& options, int status) {
  if (!options.plots) return status;
  std::fflush(stdout);  // before the script writes to the same stream
  const int plotted = render_sweep_plots(dir.string());
  if (plotted == 0) {
    if (!options.quiet) std::fprintf(stderr, "nvlsim sweep: drew %s\n", (dir / "plots").c_str());
    return status;
  }
  std::string command;
  for (const std::string& arg : sweep_plots_command(dir.string()))
    command += (command.empty() ? "" : " ") + arg;
  std::fprintf(stderr, "nvlsim sweep: --plots: %s failed with status %d\n", command.c_str(), plotted);
  return 1;
}

// The tables from the runs finished; returns 1 when some are not, listing them.
int collect_and_report(const fs::path& dir) {
  const SweepPlan plan = read_plan(dir);
  const Collected c = collect_sweep(dir, plan);
  std::string report = fmt::format("nvlsim sweep collect: {} of {} runs finished; wrote {}\n", c.finished,
                                   plan.runs.size(), written(dir));
  for (const std::size_t i : c.unfinished) {
    const SweepRun& run = plan.runs[i];
    report += fmt::format("  run {} (cell {}, seed {}, {}): {}\n", i, run.cell, run.seed,
                          run_dir(dir, run).string(), unfinished_text(dir, run));
  }
  std::fputs(report.c_str(), stderr);
  return c.unfinished.empty() ? 0 : 1;
}

// The runs not finished as a job array; with --wait, the tables once it has ended.
int submit_sweep(const fs::path& dir, const SweepPlan& plan, const SweepOptions& options) {
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < plan.runs.size(); ++i)
    if (!options.resume || !run_finished(dir, plan.runs[i])) todo.push_back(i);
  if (todo.empty()) return with_plots(dir, options, collect_and_report(dir));
  const std::string job = submit_array(
      dir, todo,
      {fs::read_symlink("/proc/self/exe"), options.slurm_opts, options.max_parallel, options.wait});
  std::printf("%s\n", job.c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "nvlsim sweep: %zu of %zu runs submitted as Slurm job %s (%s)%s\n", todo.size(),
               plan.runs.size(), job.c_str(), (dir / "sweep.sbatch").c_str(),
               options.wait ? "" : "; `nvlsim sweep collect DIR` once it has ended");
  return options.wait ? with_plots(dir, options, collect_and_report(dir)) : 0;
}

}  // namespace

SweepCommands add_sweep_command(CLI::App& app, SweepOptions& o) {
  CLI::App* sweep = app.add_subcommand(
      "sweep",
      "run every cell of a grid of settings once per seed, each run a normal `nvlsim run`, and\n"
      "write sweep.csv and sweep_summary.csv (mean, sd and 95% interval over the seeds);\n"
      "finished runs are kept and skipped next time (docs/sweep.md)");
  sweep->add_option("grid", o.grid, "the grid, YAML or JSON (docs/sweep.md)")->type_name("GRID");
  sweep->add_option("--out", o.out, "the sweep's folder: runs/, sweep-grid.json and the tables (required)")
      ->type_name("DIR");
  add_number(*sweep, "--jobs", o.jobs, 1, 4096, "N",
             "runs at once, one process each (default: one per core)");
  sweep->add_flag("-q,--quiet", o.quiet, "no progress and no closing line on stderr (failures are reported)");
  const std::string plots_help =
      "then draw each metric against the swept settings into DIR/plots/ with analysis/sweep_plot.py\n"
      "(python3, matplotlib; docs/sweep.md#plots)";
  sweep->add_flag("--plots", o.plots, plots_help);
  sweep->add_flag_callback(
      "--no-resume", [&o] { o.resume = false; }, "run again the runs already finished");
  const std::string slurm = "Slurm job arrays (docs/sweep.md)";
  sweep
      ->add_flag("--slurm", o.slurm,
                 "submit the runs not finished as a Slurm job array (sbatch), one task a run")
      ->group(slurm);
  sweep
      ->add_option("--slurm-opts", o.slurm_opts,
                   "more sbatch options, split at blanks: \"--partition=p --time=60\"")
      ->type_name("OPTS")
      ->group(slurm);
  add_number(*sweep, "--max-parallel", o.max_parallel, 1, 1 << 20, "K",
             "array tasks running at once (--array=...%K)")
      ->group(slurm);
  sweep->add_flag("--wait", o.wait, "wait until the array has ended (sbatch --wait), then collect")
      ->group(slurm);
  CLI::App* collect = sweep->add_subcommand(
      "collect", "rebuild DIR's sweep.csv and sweep_summary.csv from the runs finished, listing the others");
  collect->add_option("dir", o.dir, "the sweep's folder (--out of the sweep)")->type_name("DIR");
  collect->add_flag("--plots", o.plots, plots_help);
  CLI::App* run_one =
      sweep->add_subcommand("run-one", "run I of the sweep in DIR (what each run process does)");
  run_one->add_option("dir", o.dir, "the sweep's folder")->type_name("DIR");
  add_number(*run_one, "index", o.index, std::size_t{0}, SIZE_MAX, "I",
             "the run, from 0 in sweep-grid.json's runs");
  for (CLI::App* command : {collect, run_one})
    command->final_callback([command, &o] {
      const bool one = command == command->get_parent()->get_subcommand("run-one");
      if (o.dir.empty() || (one && command->count("index") == 0))
        fail("sweep " + command->get_name(), fmt::format("expected {} (see nvlsim sweep {} --help)",
                                                         one ? "DIR and I" : "DIR", command->get_name()));
    });
  sweep->final_callback([sweep, &o] {
    if (!sweep->get_subcommands().empty()) return;
    if (o.grid.empty()) fail("sweep", "a GRID file is required (see nvlsim sweep --help)");
    if (o.out.empty()) fail("sweep", "--out DIR is required");
    for (const char* flag : {"--slurm-opts", "--max-parallel", "--wait"})
      if (!o.slurm && sweep->count(flag) > 0) fail(flag, "only with --slurm");
    if (o.slurm && sweep->count("--jobs") > 0) fail("--jobs", "not with --slurm (see --max-parallel)");
    if (o.slurm && o.plots && !o.wait)
      fail("--plots",
           "with --slurm only with --wait (or `nvlsim sweep collect DIR --plots` once it has ended)");
  });
  return {sweep, collect, run_one};
}

int sweep_command(const SweepOptions& options) {
  const GridKeys keys = sweep_grid_keys();
  const SweepPlan plan = make_plan(read_grid(options.grid, keys), keys);
  check_cells(plan);
  check_plot_script(options);
  const fs::path dir = options.out;
  write_plan(dir, plan);
  if (options.slurm) return submit_sweep(dir, plan, options);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const LocalRunnerResult ran =
      run_locally(dir, plan,
                  {fs::read_symlink("/proc/self/exe"), options.jobs > 0 ? options.jobs : cores,
                   !options.quiet && ::isatty(STDERR_FILENO), options.resume});
  collect_sweep(dir, plan);
  if (!options.quiet)
    std::fputs(fmt::format("nvlsim sweep: {} run{}: {} run now, {} already finished, {} failed; wrote {}\n",
                           plan.runs.size(), plan.runs.size() == 1 ? "" : "s", ran.succeeded, ran.skipped,
                           ran.failed, written(dir))
                   .c_str(),
               stderr);
  return with_plots(dir, options, ran.failed > 0 ? 1 : 0);
}

int collect_command(const SweepOptions& options) {
  check_plot_script(options);
  return with_plots(options.dir, options, collect_and_report(options.dir));
}

}  // namespace nvlsim
