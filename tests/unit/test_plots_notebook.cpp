// The figures: `nvlsim --plots` and analysis/compare_policies.ipynb run headless on a small run and
// write their PNGs (Debian's python3-matplotlib, python3-pandas, jupyter-nbconvert, python3-ipykernel).

#include <catch2/catch.hpp>

#include <cstdlib>

#include "analysis/plot_runner.hpp"
#include "nvlsim_process.hpp"

using namespace nvlsim::test;

namespace {

constexpr const char* kFigures[] = {"gpu_utilization.png", "waiting_time_cdf.png", "bw_efficiency_hist.png",
                                    "idle_cost.png", "fragmentation.png"};

void check_figures(const std::filesystem::path& dir) {
  for (const char* name : kFigures) {
    INFO(name);
    CHECK(std::filesystem::exists(dir / name));
    // A PNG, not an empty file.
    CHECK(slurp((dir / name).string()).rfind("\x89PNG", 0) == 0);
  }
}

std::string small_run(const std::filesystem::path& out) {
  return "--quiet --policy all --trace " + data_file("theta_100.swf") + " --out " + out.string();
}

}  // namespace

TEST_CASE("nvlsim --plots renders every figure into the output directory", "[e2e][plots]") {
  const auto dir = scratch_dir("plots");
  const auto r = run_nvlsim(small_run(dir / "out") + " --plots", dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  check_figures(dir / "out");
  // The figures are the run's: a next run without --plots removes them with the rest of the old run.
  REQUIRE(run_nvlsim(small_run(dir / "out"), dir).status == 0);
  CHECK_FALSE(std::filesystem::exists(dir / "out" / "gpu_utilization.png"));
  CHECK(std::filesystem::exists(dir / "out" / "jobs.csv"));
}

TEST_CASE("the comparison notebook executes headless and saves the figures", "[e2e][plots][notebook]") {
  const auto dir = scratch_dir("notebook");
  REQUIRE(run_nvlsim(small_run(dir / "out"), dir).status == 0);
  // No bytecode cache: the notebook imports plot.py from the source tree.
  const std::string cmd =
      "cd " + dir.string() + " && NVLSIM_OUT=" + (dir / "out").string() + " PYTHONDONTWRITEBYTECODE=1 " +
      nvlsim::python_interpreter() +
      " -m nbconvert --to notebook --execute --ExecutePreprocessor.timeout=120 --output-dir " + dir.string() +
      " " + NVLSIM_SOURCE_DIR + "/analysis/compare_policies.ipynb > nb.log 2>&1";
  const int status = std::system(cmd.c_str());
  INFO(slurp((dir / "nb.log").string()));
  REQUIRE(status == 0);
  CHECK(std::filesystem::exists(dir / "compare_policies.ipynb"));
  check_figures(dir / "out");
}
