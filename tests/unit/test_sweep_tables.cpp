// sweep.csv and sweep_summary.csv from runs' summaries: rows in grid order, statistics over seeds and the
// paired change against per-gpu, worked by hand.

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "csv_table.hpp"
#include "sim/sweep/sweep_csv.hpp"

using namespace nvlsim;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

SummaryLine line(const std::string& policy, double makespan, double waiting) {
  const auto text = [](double v) { return std::isnan(v) ? std::string() : std::to_string(v); };
  return {{policy, text(makespan), text(waiting)}, {makespan, waiting}};
}

// Cell 0 replays per-gpu and block over seeds 1-3; cell 1 only block, and its seed 3 has not finished.
struct Sweep {
  SweepPlan plan;
  SweepResults results;
};

Sweep sweep() {
  Sweep s;
  s.plan.varying = {"load"};
  s.plan.seeds = {1, 2, 3};
  s.plan.cells = {{{"load", "0.5"}, {"platform", "nvl72x2"}}, {{"load", "a,b"}, {"platform", "nvl72x2"}}};
  for (std::size_t c = 0; c < 2; ++c)
    for (const std::uint64_t seed : s.plan.seeds)
      s.plan.runs.push_back({c, seed, fmt::format("{:016x}", c * 10 + seed)});
  s.results.columns = {"policy", "makespan", "mean_waiting_time"};
  s.results.finished = {{0, {line("per-gpu", 100, 1), line("block", 90, 2)}},
                        {1, {line("per-gpu", 110, 2), line("block", 100, kNaN)}},
                        {2, {line("per-gpu", 120, 3), line("block", 140, 4)}},
                        {3, {line("block", 10, 1)}},
                        {4, {line("block", 20, 1)}}};
  s.results.unfinished = {5};
  return s;
}

std::vector<std::vector<std::string>> rows(const std::string& csv) {
  std::istringstream in(csv);
  std::vector<std::vector<std::string>> out;
  for (std::string text; std::getline(in, text);) out.push_back(test::split_csv_line(text));
  return out;
}

double number(const std::string& cell) {
  return std::stod(cell);
}

}  // namespace

TEST_CASE("sweep.csv has a row per finished run and policy, in grid order", "[sweep][tables]") {
  const Sweep s = sweep();
  std::ostringstream out;
  write_sweep_csv(out, s.plan, s.results);
  const auto r = rows(out.str());
  REQUIRE(r.size() == 1 + 8);
  CHECK(r[0] ==
        std::vector<std::string>{"cell", "run", "seed", "load", "policy", "makespan", "mean_waiting_time"});
  CHECK(r[1] ==
        std::vector<std::string>{"0", "0000000000000001", "1", "0.5", "per-gpu", "100.000000", "1.000000"});
  CHECK(r[4][4] == "block");
  CHECK(r[4][6].empty());  // undefined stays empty
  CHECK(r[8][0] == "1");
  CHECK(r[8][3] == "a,b");
  CHECK(out.str().find("\"a,b\"") != std::string::npos);
}

TEST_CASE("sweep_summary.csv: mean, sd, Student t interval and the paired change against per-gpu",
          "[sweep][tables][statistics]") {
  const Sweep s = sweep();
  std::ostringstream out;
  write_sweep_summary_csv(out, s.plan, s.results);
  const auto r = rows(out.str());
  REQUIRE(r.size() == 1 + 2 * 2 + 1 * 2);
  CHECK(r[0] == std::vector<std::string>{"cell", "load", "policy", "metric", "n", "mean", "sd", "ci95_low",
                                         "ci95_high", "vs_per_gpu_mean", "vs_per_gpu_ci95_low",
                                         "vs_per_gpu_ci95_high"});
  // cell 0, per-gpu, makespan: against itself the change is 0 with no spread.
  CHECK(r[1][2] == "per-gpu");
  CHECK(r[1][3] == "makespan");
  CHECK(number(r[1][9]) == 0);
  CHECK(number(r[1][10]) == 0);
  // cell 0, block, makespan {90, 100, 140}: mean 110, sd sqrt(1400 / 2) = 26.4575; t(0.975, 2) = 4.30265,
  // half width 4.30265 * 26.4575 / sqrt(3) = 65.7241. Changes {-10, -10, 20}: mean 0, sd sqrt(600 / 2),
  // half width 4.30265 * 17.3205 / sqrt(3) = 43.0265.
  const auto& block = r[3];
  CHECK(block[2] == "block");
  CHECK(block[3] == "makespan");
  CHECK(block[4] == "3");
  CHECK(number(block[5]) == Approx(110));
  CHECK(number(block[6]) == Approx(26.4575).epsilon(1e-5));
  CHECK(number(block[7]) == Approx(110 - 65.7241).epsilon(1e-5));
  CHECK(number(block[8]) == Approx(110 + 65.7241).epsilon(1e-5));
  CHECK(number(block[9]) == Approx(0).margin(1e-12));
  CHECK(number(block[10]) == Approx(-43.0265).epsilon(1e-5));
  CHECK(number(block[11]) == Approx(43.0265).epsilon(1e-5));
  // Waiting time of block is undefined for seed 2: two values {2, 4}, paired changes {1, 1}.
  const auto& waiting = r[4];
  CHECK(waiting[3] == "mean_waiting_time");
  CHECK(waiting[4] == "2");
  CHECK(number(waiting[5]) == 3);
  CHECK(number(waiting[9]) == 1);
  CHECK(number(waiting[10]) == 1);
  // Cell 1 has no per-gpu: no change; two seeds finished of three, {10, 20}: t(0.975, 1) = 12.7062,
  // half width 12.7062 * 7.07107 / sqrt(2) = 63.531.
  const auto& other = r[5];
  CHECK(other[0] == "1");
  CHECK(other[1] == "a,b");
  CHECK(other[4] == "2");
  CHECK(number(other[5]) == 15);
  CHECK(number(other[7]) == Approx(15 - 63.531).epsilon(1e-5));
  CHECK(other[9].empty());
  CHECK(other[10].empty());
  CHECK(other[11].empty());
}
