// Regression benchmarks: fixed scenarios whose summary.csv must match the committed baseline in
// tests/regression/ (integers exactly, other numbers to 1e-9 relative; runs are deterministic). A change
// that moves a result updates the baseline in the same commit and says why:
//   NVLSIM_UPDATE_BASELINES=1 build/tests/nvlsim_tests "[regression]"
// never in CI: with CI=true in the environment as well, the test fails instead of rewriting anything.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "nvlsim_process.hpp"

using namespace nvlsim::test;
namespace fs = std::filesystem;

namespace {

const std::string kSource = NVLSIM_SOURCE_DIR;
const std::string kX8 = kSource + "/platforms/nvl72x8.xml";
// The policies the baselines hold, named rather than `all`: registering a new policy must not change
// what these scenarios run (the baselines would drift without anyone deciding they should).
const std::string kPolicies = "--policy per-gpu,block,sub-block,tree";

struct Scenario {
  const char* name;
  std::string args;
};

// CI sets CI=true (GitHub Actions, GitLab); some set CI=1.
bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && (std::string_view(ci) == "true" || std::string_view(ci) == "1");
}

bool is_integer(const std::string& s) {
  if (s.empty()) return false;
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

bool is_number(const std::string& s) {
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}

// Differences between two summary.csv files, one line each; empty when they match.
std::string compare(const CsvTable& actual, const CsvTable& baseline) {
  std::string diff;
  if (actual.column != baseline.column) return "the columns differ\n";
  if (actual.rows.size() != baseline.rows.size()) return "the number of policies differs\n";
  for (std::size_t r = 0; r < baseline.rows.size(); ++r) {
    for (const auto& [name, c] : baseline.column) {
      const std::string& a = actual.rows[r].at(c);
      const std::string& b = baseline.rows[r].at(c);
      bool same = a == b;
      if (!same && !is_integer(b) && is_number(a) && is_number(b)) {
        const double x = std::stod(a), y = std::stod(b);
        same = std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y));
      }
      if (!same) diff += baseline.at(r, "policy") + " " + name + ": " + a + " (baseline " + b + ")\n";
    }
  }
  return diff;
}

}  // namespace

TEST_CASE("regression scenarios reproduce their committed summary.csv", "[regression]") {
  const bool update = std::getenv("NVLSIM_UPDATE_BASELINES") != nullptr;
  if (update && in_ci())
    FAIL(
        "NVLSIM_UPDATE_BASELINES is set with CI=true: CI must never rewrite the committed baselines in "
        "tests/regression/; unset NVLSIM_UPDATE_BASELINES in the CI environment and update them locally");
  const auto dir = scratch_dir("regression");
  const auto trace = (dir / "mix2k.swf").string();
  // A seeded mix of 2,000 jobs sized for 576 GPUs, generated here rather than committed.
  REQUIRE(run_nvlsim("workload mix --jobs 2000 --gpus 576 --seed 3 -o " + trace, dir).status == 0);
  const Scenario scenarios[] = {
      {"mix2k-x8-failures", "--platform " + kX8 + " --trace " + trace + " " + kPolicies +
                                " --failures llama3 --failure-rate-scale 5 --seed 3"},
      {"theta-x8", "--platform " + kX8 + " --trace " + data_file("theta_100.swf") + " " + kPolicies},
      {"nasa-x8-incidents", "--platform " + kX8 + " --trace " + data_file("NASA-iPSC-1993-3.1-cln.swf.gz") +
                                " " + kPolicies + " --failures " + kSource +
                                "/tests/regression/incidents.csv"},
  };
  for (const Scenario& s : scenarios) {
    SECTION(s.name) {
      const fs::path out = dir / s.name;
      const auto r = run_nvlsim("--quiet " + s.args + " --out " + out.string(), dir);
      INFO(r.err);
      REQUIRE(r.status == 0);
      const fs::path baseline =
          fs::path(kSource) / "tests/regression" / (std::string(s.name) + ".summary.csv");
      if (update) fs::copy_file(out / "summary.csv", baseline, fs::copy_options::overwrite_existing);
      REQUIRE(fs::exists(baseline));
      const std::string diff = compare(read_csv((out / "summary.csv").string()), read_csv(baseline.string()));
      INFO(s.name << " drifted from " << baseline.string() << ":\n" << diff);
      CHECK(diff.empty());
    }
  }
}

TEST_CASE("the baseline comparison catches a drifted figure", "[regression]") {
  const auto dir = scratch_dir("regression-compare");
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return read_csv((dir / name).string());
  };
  const auto base = write("b.csv", "policy,nb_jobs,makespan\nblock,10,1000.5\n");
  CHECK(compare(write("same.csv", "policy,nb_jobs,makespan\nblock,10,1000.5000000001\n"), base).empty());
  CHECK(compare(write("float.csv", "policy,nb_jobs,makespan\nblock,10,1000.501\n"), base) ==
        "block makespan: 1000.501 (baseline 1000.5)\n");
  CHECK(compare(write("int.csv", "policy,nb_jobs,makespan\nblock,11,1000.5\n"), base) ==
        "block nb_jobs: 11 (baseline 10)\n");
  CHECK(!compare(write("cols.csv", "policy,nb_jobs\nblock,10\n"), base).empty());
}
