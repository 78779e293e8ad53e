// `nvlsim sweep` as users run it: a small grid on two racks, resumed, collected, and with a failing cell.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "nvlsim_process.hpp"

using namespace nvlsim::test;
namespace fs = std::filesystem;

namespace {

fs::path write_grid(const fs::path& dir, const std::string& text) {
  const fs::path grid = dir / "grid.yaml";
  std::ofstream(grid) << text;
  return grid;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a 2x2 sweep over 2 seeds runs every run once, resumes and collects the same tables",
          "[sweep][e2e]") {
  const auto dir = scratch_dir("sweep-2x2");
  const auto grid = write_grid(dir,
                               "base:\n"
                               "  platform: nvl72x2\n"
                               "  mix.jobs: 30\n"
                               "axes:\n"
                               "  mix.load: [0.5, 0.9]\n"
                               "  comm-fraction: [0.2, 0.5]\n"
                               "policies: [per-gpu, block]\n"
                               "seeds: 2\n");
  const std::string sweep = "sweep " + grid.string() + " --out " + (dir / "out").string() + " --jobs 2";
  const auto first = run_nvlsim(sweep, dir);
  INFO(first.err);
  REQUIRE(first.status == 0);
  CHECK(has(first.err, "8 runs: 8 run now, 0 already finished, 0 failed"));
  const CsvTable runs = read_csv((dir / "out" / "sweep.csv").string());
  REQUIRE(runs.rows.size() == 4 * 2 * 2);
  const std::pair<const char*, const char*> cells[] = {
      {"0.5", "0.2"}, {"0.5", "0.5"}, {"0.9", "0.2"}, {"0.9", "0.5"}};
  for (std::size_t i = 0; i < runs.rows.size(); ++i) {
    INFO(i);
    CHECK(runs.at(i, "cell") == std::to_string(i / 4));
    CHECK(runs.at(i, "seed") == std::to_string(i / 2 % 2 + 1));
    CHECK(runs.at(i, "policy") == (i % 2 == 0 ? "per-gpu" : "block"));
    CHECK(runs.at(i, "mix.load") == cells[i / 4].first);
    CHECK(runs.at(i, "comm-fraction") == cells[i / 4].second);
  }
  // Each row is its run's summary.csv row, and the generated trace follows the run's seed.
  const CsvTable summary = read_csv((dir / "out" / "runs" / runs.at(2, "run") / "summary.csv").string());
  CHECK(summary.at(0, "makespan") == runs.at(2, "makespan"));
  CHECK(runs.at(0, "makespan") != runs.at(2, "makespan"));

  const CsvTable stats = read_csv((dir / "out" / "sweep_summary.csv").string());
  const std::size_t metrics = summary.column.size() - 1;
  REQUIRE(stats.rows.size() == 4 * 2 * metrics);
  // Cell 0, block, makespan: the mean of its two seeds in sweep.csv, and the mean paired change.
  std::size_t row = 0;
  while (!(stats.at(row, "policy") == "block" && stats.at(row, "metric") == "makespan")) ++row;
  CHECK(stats.at(row, "cell") == "0");
  CHECK(stats.at(row, "n") == "2");
  CHECK(stats.num(row, "mean") == Approx((runs.num(1, "makespan") + runs.num(3, "makespan")) / 2));
  CHECK(stats.num(row, "vs_per_gpu_mean") == Approx((runs.num(1, "makespan") - runs.num(0, "makespan") +
                                                     runs.num(3, "makespan") - runs.num(2, "makespan")) /
                                                    2));

  const std::string tables =
      slurp((dir / "out" / "sweep.csv").string()) + slurp((dir / "out" / "sweep_summary.csv").string());
  const auto again = run_nvlsim(sweep, dir);
  CHECK(again.status == 0);
  CHECK(has(again.err, "8 runs: 0 run now, 8 already finished, 0 failed"));
  const auto collected = run_nvlsim("sweep collect " + (dir / "out").string(), dir);
  CHECK(collected.status == 0);
  CHECK(has(collected.err, "8 of 8 runs finished"));
  CHECK(slurp((dir / "out" / "sweep.csv").string()) + slurp((dir / "out" / "sweep_summary.csv").string()) ==
        tables);
}

TEST_CASE("a failing run is reported and does not stop the others", "[sweep][e2e][errors]") {
  const auto dir = scratch_dir("sweep-failing");
  const auto grid = write_grid(dir,
                               "base:\n"
                               "  platform: nvl72x2\n"
                               "cells:\n"
                               "  - {trace: nonexistent.swf}\n"
                               "  - {mix.jobs: 20}\n"
                               "policies: [per-gpu]\n");
  const auto r = run_nvlsim("sweep " + grid.string() + " --out " + (dir / "out").string() + " --jobs 1", dir);
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK(has(r.err, "run 0 (cell 0, seed 1) failed (exit status 2)"));
  CHECK(has(r.err, (dir / "nonexistent.swf").string() + ": cannot open"));
  CHECK(has(r.err, "2 runs: 1 run now, 0 already finished, 1 failed"));
  const CsvTable runs = read_csv((dir / "out" / "sweep.csv").string());
  REQUIRE(runs.rows.size() == 1);
  CHECK(runs.at(0, "cell") == "1");
  const auto collected = run_nvlsim("sweep collect " + (dir / "out").string(), dir);
  CHECK(collected.status == 1);
  CHECK(has(collected.err, "1 of 2 runs finished"));
  CHECK(has(collected.err, "run 0 (cell 0, seed 1, "));
  CHECK(has(collected.err, "failed: " + (dir / "nonexistent.swf").string()));
}

TEST_CASE("a cell whose settings rule each other out stops the sweep before any run",
          "[sweep][e2e][errors]") {
  const auto dir = scratch_dir("sweep-bad-cell");
  const auto grid = write_grid(dir, "base:\n  platform: nvl72x2\naxes:\n  mix.load: [0.5, 0.9]\n");
  const auto r = run_nvlsim("sweep " + grid.string() + " --out " + (dir / "out").string(), dir);
  CHECK(r.status == 2);
  CHECK(r.err == grid.string() + ": cell 0: workload mix: give one of --jobs N or --days D\n");
  CHECK(!fs::exists(dir / "out"));
}

TEST_CASE("a bad grid stops the sweep before any run, naming file and line", "[sweep][e2e][errors]") {
  const auto dir = scratch_dir("sweep-bad-grid");
  const auto grid = write_grid(dir, "base:\n  platform: nvl72x2\naxes:\n  comm-fraction: [0.5, 2]\n");
  const auto r = run_nvlsim("sweep " + grid.string() + " --out " + (dir / "out").string(), dir);
  CHECK(r.status == 2);
  CHECK(r.err == grid.string() + ":4: axes.comm-fraction[1]: must be between 0 and 1, got 2\n");
  CHECK(!fs::exists(dir / "out"));
}
