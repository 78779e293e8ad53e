// A sweep's figures: `nvlsim sweep --plots` and `sweep collect --plots` run analysis/sweep_plot.py on a tiny
// sweep with a numeric and a non-numeric setting, analysis/sweep.ipynb executes headless on it, and a missing
// or broken sweep_summary.csv or a failed drawing is reported.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "analysis/plot_runner.hpp"
#include "nvlsim_process.hpp"

using namespace nvlsim::test;
namespace fs = std::filesystem;

namespace {

// sweep_plot.py's default metrics; the swept settings: mix.load (numbers) and failures (llama3 or unset).
constexpr const char* kMetrics[] = {"bw_utilization",     "gpu_utilization",   "goodput",
                                    "stranded_gpu_hours", "mean_waiting_time", "makespan"};
constexpr const char* kSettings[] = {"mix.load", "failures"};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Three cells (load 0.5 and 0.9 without failures, 0.9 with) x 2 seeds x 2 policies: seconds.
std::string tiny_sweep(const fs::path& dir) {
  const fs::path grid = dir / "grid.yaml";
  std::ofstream(grid) << "base:\n"
                         "  platform: nvl72x2\n"
                         "  mix.jobs: 20\n"
                         "axes:\n"
                         "  mix.load: [0.5, 0.9]\n"
                         "cells:\n"
                         "  - {mix.load: 0.9, failures: llama3}\n"
                         "policies: [per-gpu, block]\n"
                         "seeds: 2\n";
  return "sweep " + grid.string() + " --out " + (dir / "out").string() + " --jobs 2 --quiet";
}

// Every figure's bytes by name, after checking that the folder holds exactly the expected PNGs.
std::map<std::string, std::string> check_figures(const fs::path& plots) {
  std::map<std::string, std::string> expected;
  for (const char* metric : kMetrics)
    for (const char* setting : kSettings)
      for (const char* kind : {"-by-", "-vs-per-gpu-by-"})
        expected[std::string("sweep-") + metric + kind + setting + ".png"] = "";
  std::map<std::string, std::string> found;
  for (const auto& entry : fs::directory_iterator(plots))
    found[entry.path().filename().string()] = slurp(entry.path().string());
  for (const auto& [name, bytes] : found) {
    INFO(name);
    CHECK(expected.contains(name));
    CHECK(bytes.rfind("\x89PNG\r\n\x1a\n", 0) == 0);
    // Axes, lines, bands and labels: an empty figure is a few kB.
    CHECK(bytes.size() > 10000);
  }
  CHECK(found.size() == expected.size());
  return found;
}

int run_script(const std::string& args, const fs::path& dir) {
  const std::string cmd = nvlsim::python_interpreter() + " " + NVLSIM_SOURCE_DIR +
                          "/analysis/sweep_plot.py " + args + " >" + (dir / "out.txt").string() + " 2>" +
                          (dir / "err.txt").string();
  const int raw = std::system(cmd.c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

}  // namespace

TEST_CASE("nvlsim sweep --plots draws every metric against every swept setting, the same again on collect",
          "[sweep][e2e][plots]") {
  const auto dir = scratch_dir("sweep-plots");
  const auto r = run_nvlsim(tiny_sweep(dir) + " --plots", dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto figures = check_figures(dir / "out" / "plots");
  // A figure no longer drawn (an earlier grid's setting) is removed; the others come out byte for byte.
  std::ofstream(dir / "out" / "plots" / "sweep-makespan-by-comm-fraction.png") << "old";
  const auto collected = run_nvlsim("sweep collect " + (dir / "out").string() + " --plots", dir);
  INFO(collected.err);
  REQUIRE(collected.status == 0);
  CHECK(check_figures(dir / "out" / "plots") == figures);
}

TEST_CASE("a sweep whose figures fail keeps its tables and exits 1 with the script's error",
          "[sweep][e2e][plots][errors]") {
  const auto dir = scratch_dir("sweep-plots-fail");
  REQUIRE(run_nvlsim(tiny_sweep(dir), dir).status == 0);
  // A file where the plots folder goes.
  std::ofstream(dir / "out" / "plots") << "in the way";
  const auto r = run_nvlsim("sweep collect " + (dir / "out").string() + " --plots", dir);
  CHECK(r.status == 1);
  CHECK(has(r.err, "sweep_plot.py: "));
  CHECK(has(r.err, (dir / "out" / "plots").string()));
  CHECK(has(r.err, "nvlsim sweep: --plots: "));
  CHECK(has(r.err, "failed with status 1"));
  CHECK(fs::file_size(dir / "out" / "sweep_summary.csv") > 0);
}

TEST_CASE("a Slurm sweep draws its figures only with --wait: nothing is collected before the array ends",
          "[sweep][plots][errors]") {
  const auto dir = scratch_dir("sweep-plots-slurm");
  const auto r = run_nvlsim("sweep grid.yaml --out out --slurm --plots", dir);
  CHECK(r.status != 0);
  CHECK(has(r.err, "--plots: with --slurm only with --wait"));
}

TEST_CASE("sweep_plot.py names a missing or broken sweep_summary.csv", "[sweep][plots][errors]") {
  const auto dir = scratch_dir("sweep-plot-input");
  const auto summary = (dir / "sweep_summary.csv").string();
  CHECK(run_script(dir.string(), dir) == 1);
  CHECK(slurp((dir / "err.txt").string()) ==
        "sweep_plot.py: " + summary + ": not found (`nvlsim sweep` or `nvlsim sweep collect` writes it)\n");

  std::ofstream(summary) << "policy,makespan\nper-gpu,3\n";  // a run's summary.csv, not a sweep's
  CHECK(run_script(dir.string(), dir) == 1);
  CHECK(has(slurp((dir / "err.txt").string()),
            "sweep_plot.py: " + summary + ": not a sweep_summary.csv (no column cell, metric, n, mean,"));

  std::ofstream(summary) << "cell,policy,metric,n,mean,ci95_low,ci95_high\n0,block,makespan,2,many,1,2\n";
  CHECK(run_script(dir.string(), dir) == 1);
  CHECK(has(slurp((dir / "err.txt").string()), "sweep_plot.py: " + summary + ": column mean: "));
}

TEST_CASE("the sweep notebook executes headless and saves the sweep's figures",
          "[sweep][e2e][plots][notebook]") {
  const auto dir = scratch_dir("sweep-notebook");
  REQUIRE(run_nvlsim(tiny_sweep(dir), dir).status == 0);
  // No bytecode cache: the notebook imports sweep_plot.py from the source tree.
  const std::string cmd =
      "cd " + dir.string() + " && NVLSIM_SWEEP=" + (dir / "out").string() + " PYTHONDONTWRITEBYTECODE=1 " +
      nvlsim::python_interpreter() +
      " -m nbconvert --to notebook --execute --ExecutePreprocessor.timeout=120 --output-dir " + dir.string() +
      " " + NVLSIM_SOURCE_DIR + "/analysis/sweep.ipynb > nb.log 2>&1";
  const int status = std::system(cmd.c_str());
  INFO(slurp((dir / "nb.log").string()));
  REQUIRE(status == 0);
  CHECK(fs::exists(dir / "sweep.ipynb"));
  check_figures(dir / "out" / "plots");
}
