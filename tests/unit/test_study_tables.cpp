// analysis/studies/tables.py, which renders docs/findings.md's tables: on a small sweep it prints one row
// per cell and policy with each metric's mean and interval as sweep_summary.csv has them, and refuses a
// metric the sweep does not have.

#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/plot_runner.hpp"
#include "nvlsim_process.hpp"

using namespace nvlsim::test;

namespace {

int run_tables(const std::filesystem::path& dir, const std::string& args) {
  const std::string cmd = "cd " + dir.string() + " && PYTHONDONTWRITEBYTECODE=1 " +
                          nvlsim::python_interpreter() + " " + NVLSIM_SOURCE_DIR +
                          "/analysis/studies/tables.py " + args + " > tables.md 2> tables.err";
  const int raw = std::system(cmd.c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

// The summary's mean, interval of one cell, policy and metric, as strings.
std::vector<std::string> summary_row(const std::filesystem::path& file, const std::string& cell,
                                     const std::string& policy, const std::string& metric) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream split(line);
    for (std::string field; std::getline(split, field, ',');) fields.push_back(field);
    // cell, one setting, policy, metric, n, mean, sd, ci95_low, ci95_high, ...
    if (fields.size() > 8 && fields[0] == cell && fields[2] == policy && fields[3] == metric) return fields;
  }
  return {};
}

}  // namespace

TEST_CASE("the study tables show each cell's mean and interval from sweep_summary.csv",
          "[e2e][sweep][plots]") {
  const auto dir = scratch_dir("study-tables");
  {
    std::ofstream grid(dir / "grid.yaml");
    grid << "base: {platform: nvl72x2, mix.jobs: 40}\naxes: {mix.load: [0.5, 0.9]}\n"
            "policies: [per-gpu, block]\nseeds: 2\n";
  }
  const auto r = run_nvlsim(
      "sweep " + (dir / "grid.yaml").string() + " --out " + (dir / "sw").string() + " --jobs 2 --quiet", dir);
  INFO(r.err);
  REQUIRE(r.status == 0);

  REQUIRE(run_tables(dir, "sw --metrics makespan") == 0);
  const std::string table = slurp((dir / "tables.md").string());
  INFO(table);
  CHECK(table.rfind("| mix.load | policy | n | makespan |\n|---|---|---|---|\n", 0) == 0);
  // Two cells times two policies.
  CHECK(std::count(table.begin(), table.end(), '\n') == 2 + 4);
  const auto row = summary_row(dir / "sw" / "sweep_summary.csv", "1", "block", "makespan");
  REQUIRE(row.size() > 8);
  // "| 0.9 | block | 2 | 12,345 [12,000, 12,690] |": the numbers, rounded to whole seconds.
  const std::string prefix = "| 0.9 | block | 2 | ";
  const auto at = table.find(prefix);
  REQUIRE(at != std::string::npos);
  std::string numbers = table.substr(at + prefix.size(), table.find('\n', at) - at - prefix.size());
  std::erase(numbers, ',');
  std::ranges::replace(numbers, '[', ' ');
  std::ranges::replace(numbers, ']', ' ');
  std::istringstream shown(numbers);
  double mean = 0, low = 0, high = 0;
  REQUIRE(shown >> mean >> low >> high);
  CHECK(mean == Approx(std::stod(row[5])).margin(0.5));
  CHECK(low == Approx(std::stod(row[7])).margin(0.5));
  CHECK(high == Approx(std::stod(row[8])).margin(0.5));
  CHECK(low < mean);

  CHECK(run_tables(dir, "sw --metrics no_such_metric") != 0);
  CHECK(slurp((dir / "tables.err").string()).find("no metric no_such_metric") != std::string::npos);
}
