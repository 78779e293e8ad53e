// End-to-end checks of the headline metrics on real replays: every summary figure that can be
// recomputed from jobs.csv and timeseries.csv is, and the identities the docs promise hold.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "nvlsim_process.hpp"
#include "two_rack_replay.hpp"

using namespace nvlsim::test;

namespace {

// What jobs.csv and attempts.csv say about one policy.
struct JobTotals {
  double first_submit = INFINITY, last_finish = -INFINITY;
  double busy = 0, cross_domain = 0, slowdown = 0;  // GPU-s; busy over every attempt
  double lost_work = 0;                             // GPU-s of killed attempts not checkpointed
  double timed_out = 0;                             // GPU-s of jobs killed at their time limit
  long killed = 0;                                  // attempts failures killed
};

int gpu_count(const std::string& intervals) {
  int n = 0;
  std::istringstream in(intervals);
  std::string part;
  while (in >> part) {
    const auto dash = part.find('-');
    n += dash == std::string::npos ? 1
                                   : std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
  }
  return n;
}

std::map<std::string, JobTotals> job_totals(const CsvTable& jobs, const CsvTable& attempts) {
  std::map<std::string, JobTotals> out;
  for (std::size_t r = 0; r < jobs.rows.size(); ++r) {
    if (jobs.at(r, "final_state") == "REJECTED") continue;
    JobTotals& t = out[jobs.at(r, "policy")];
    const double gpus = jobs.num(r, "requested_number_of_resources");
    const double exec = jobs.num(r, "execution_time");
    t.first_submit = std::min(t.first_submit, jobs.num(r, "submission_time"));
    t.last_finish = std::max(t.last_finish, jobs.num(r, "finish_time"));
    if (jobs.num(r, "domains") > 1) t.cross_domain += gpus * exec;
    if (jobs.at(r, "final_state") == "COMPLETED_SUCCESSFULLY")
      t.slowdown += gpus * std::max(0.0, exec - jobs.num(r, "trace_run_time"));
    if (jobs.at(r, "final_state") == "COMPLETED_WALLTIME_REACHED")
      t.timed_out += gpu_count(jobs.at(r, "allocated_resources")) * exec;
  }
  for (std::size_t r = 0; r < attempts.rows.size(); ++r) {
    JobTotals& t = out[attempts.at(r, "policy")];
    const double gpus = gpu_count(attempts.at(r, "allocated_resources"));
    const double exec = attempts.num(r, "execution_time");
    t.busy += gpus * exec;
    // Attempts a failure killed say how much of their work a checkpoint kept.
    if (attempts.at(r, "final_state") == "COMPLETED_KILLED" && !attempts.at(r, "work_kept_time").empty()) {
      ++t.killed;
      t.lost_work += gpus * (exec - attempts.num(r, "work_kept_time"));
    }
  }
  return out;
}

// Integrals of timeseries.csv over [from, to], GPU-s.
struct SeriesTotals {
  double busy = 0, idle = 0, down = 0, idle_queued = 0, idle_no_demand = 0, stranded = 0, free = 0, held = 0;
  double failure_stranded = 0;
};

SeriesTotals series_totals(const CsvTable& ts, const std::string& policy, double from, double to, int gpus) {
  SeriesTotals t;
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < ts.rows.size(); ++r)
    if (ts.at(r, "policy") == policy) rows.push_back(r);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::size_t r = rows[i];
    const int busy = static_cast<int>(ts.num(r, "busy_gpus")),
              free = static_cast<int>(ts.num(r, "free_gpus"));
    const int held = static_cast<int>(ts.num(r, "held_idle_gpus")),
              down = static_cast<int>(ts.num(r, "down_gpus"));
    INFO(policy << " at " << ts.at(r, "time"));
    CHECK(busy + free + held + down == gpus);
    CHECK(ts.num(r, "stranded_gpus") <= free + held);
    CHECK(ts.num(r, "fgd_fragment_gpus") <= free + 1e-9);
    const int failure_stranded = static_cast<int>(ts.num(r, "failure_stranded_gpus"));
    CHECK(failure_stranded <= free + held);
    const double begin = std::max(ts.num(r, "time"), from);
    const double end = std::min(i + 1 < rows.size() ? ts.num(rows[i + 1], "time") : to, to);
    if (end <= begin) continue;
    const double dt = end - begin;
    t.busy += busy * dt;
    t.idle += (free + held + down) * dt;
    t.down += down * dt;
    (ts.num(r, "queued_jobs") > 0 ? t.idle_queued : t.idle_no_demand) +=
        (free + held - failure_stranded) * dt;
    t.failure_stranded += failure_stranded * dt;
    t.stranded += ts.num(r, "stranded_gpus") * dt;
    t.free += free * dt;
    t.held += held * dt;
  }
  return t;
}

void check_headline_identities(const std::filesystem::path& out) {
  const auto jobs = read_csv((out / "jobs.csv").string());
  const auto attempts = read_csv((out / "attempts.csv").string());
  const auto summary = read_csv((out / "summary.csv").string());
  const auto ts = read_csv((out / "timeseries.csv").string());
  const auto run = nlohmann::json::parse(slurp((out / "run.json").string()));
  const int gpus = run["platform"]["gpus"];
  const double price = run["cost_model"]["gpu_hour_usd"];
  const auto totals = job_totals(jobs, attempts);
  for (std::size_t r = 0; r < summary.rows.size(); ++r) {
    const std::string policy = summary.at(r, "policy");
    INFO("policy " << policy);
    const JobTotals& j = totals.at(policy);
    const double makespan = summary.num(r, "makespan");
    const double idle = summary.num(r, "idle_gpu_hours");
    const double scale = std::max(1.0, gpus * makespan / 3600);  // tolerances relative to capacity

    // Idle GPU-hours are the complement of the jobs' busy GPU-hours, and the parts add up to them.
    CHECK(summary.num(r, "busy_gpu_hours") == Approx(j.busy / 3600).epsilon(1e-12));
    CHECK(idle == Approx(gpus * makespan / 3600 - j.busy / 3600).margin(1e-9 * scale));
    const double no_demand = summary.num(r, "idle_no_demand_gpu_hours");
    const double scheduling = summary.num(r, "idle_scheduling_gpu_hours");
    const double failure = summary.num(r, "idle_failure_gpu_hours");
    CHECK(no_demand + scheduling + failure == Approx(idle).margin(1e-9 * scale));
    CHECK(no_demand >= 0);
    CHECK(scheduling >= -1e-9 * scale);
    CHECK(failure >= 0);
    CHECK(summary.num(r, "idle_cost_usd") == Approx(idle * price));
    CHECK(summary.num(r, "idle_cost_usd") ==
          Approx(summary.num(r, "idle_no_demand_cost_usd") + summary.num(r, "idle_scheduling_cost_usd") +
                 summary.num(r, "idle_failure_cost_usd"))
              .margin(1e-9 * scale * price));

    // The sampled state agrees with the jobs: the same busy time, so the same idle time and split.
    const SeriesTotals s = series_totals(ts, policy, j.first_submit, j.last_finish, gpus);
    CHECK(s.busy / 3600 == Approx(j.busy / 3600).margin(1e-6 * scale));
    CHECK(s.idle / 3600 == Approx(idle).margin(1e-6 * scale));
    CHECK(no_demand == Approx(s.idle_no_demand / 3600).margin(1e-9 * scale));
    CHECK(failure == Approx((s.down + s.failure_stranded) / 3600).margin(1e-9 * scale));
    CHECK(summary.num(r, "down_gpu_hours") == Approx(s.down / 3600).margin(1e-9 * scale));
    CHECK(summary.num(r, "failure_stranded_gpu_hours") ==
          Approx(s.failure_stranded / 3600).margin(1e-9 * scale));
    CHECK(summary.num(r, "jobs_killed") == j.killed);
    CHECK(summary.num(r, "lost_work_gpu_hours") == Approx(j.lost_work / 3600).margin(1e-9 * scale));
    const double available = gpus * makespan - s.down;
    CHECK(summary.num(r, "goodput") ==
          Approx(available > 0 ? (j.busy - j.lost_work) / available : 0).margin(1e-9));
    CHECK(summary.num(r, "availability") ==
          Approx(makespan > 0 ? available / (gpus * makespan) : 0).margin(1e-9));
    // The whole platform's GPU-hours at the price, per GPU-hour of work delivered at full speed and kept.
    const double delivered = j.busy - j.lost_work - j.slowdown - j.timed_out;
    CHECK(summary.num(r, "cost_per_delivered_gpu_hour_usd") ==
          Approx(gpus * makespan / 3600 * price / (delivered / 3600)).epsilon(1e-9));
    CHECK(scheduling == Approx(s.idle_queued / 3600).margin(1e-6 * scale));
    CHECK(summary.num(r, "idle_while_queued_gpu_hours") == Approx(s.idle_queued / 3600).margin(1e-9 * scale));
    CHECK(summary.num(r, "stranded_gpu_hours") == Approx(s.stranded / 3600).margin(1e-9 * scale));

    // Ratios stay in range.
    for (const char* ratio : {"fragmentation", "fgd_fragmentation", "nvlink_utilization", "ib_utilization"}) {
      INFO(ratio);
      CHECK(summary.num(r, ratio) >= 0);
      CHECK(summary.num(r, ratio) <= 1);
    }
    const double idle_time = s.free + s.held;
    CHECK(summary.num(r, "fragmentation") ==
          Approx(idle_time > 0 ? s.stranded / idle_time : 0).margin(1e-12));

    // Bandwidth figures from jobs.csv.
    CHECK(summary.num(r, "cross_domain_gpu_hours") == Approx(j.cross_domain / 3600).margin(1e-9 * scale));
    CHECK(summary.num(r, "slowdown_gpu_hours") == Approx(j.slowdown / 3600).margin(1e-9 * scale));
    CHECK(summary.num(r, "slowdown_cost_usd") == Approx(j.slowdown / 3600 * price).margin(1e-9 * scale));
    if (!summary.at(r, "bw_utilization").empty()) {
      CHECK(summary.num(r, "bw_efficiency_p10") <= summary.num(r, "bw_efficiency_p50"));
      CHECK(summary.num(r, "bw_efficiency_p50") <= summary.num(r, "bw_efficiency_p90"));
    }
  }
}

}  // namespace

TEST_CASE("headline metrics keep their identities on every sample trace and policy", "[e2e][metrics]") {
  const std::string platform = std::string(NVLSIM_SOURCE_DIR) + "/platforms/nvl72x8.xml";
  for (const char* name : {"NASA-iPSC-1993-3.1-cln.swf.gz", "theta_100.swf", "CQSim-test.swf"}) {
    SECTION(name) {
      const auto dir = scratch_dir(std::string("headline-") + name);
      const auto r = run_nvlsim("--quiet --platform " + platform + " --trace " + data_file(name) +
                                    " --policy all --out " + (dir / "out").string(),
                                dir);
      INFO(r.err);
      REQUIRE(r.status == 0);
      check_headline_identities(dir / "out");
    }
  }
}

TEST_CASE("the default mix: identities hold, and topology-aware policies use NVLink better",
          "[e2e][metrics]") {
  const auto dir = scratch_dir("headline-default");
  const auto r = run_nvlsim("--quiet --policy all --out " + (dir / "out").string(), dir);
  REQUIRE(r.status == 0);
  check_headline_identities(dir / "out");
  const auto summary = read_csv((dir / "out/summary.csv").string());
  std::map<std::string, std::size_t> row;
  for (std::size_t i = 0; i < summary.rows.size(); ++i) row[summary.at(i, "policy")] = i;
  const double per_gpu = summary.num(row.at("per-gpu"), "bw_utilization");
  CHECK(per_gpu < summary.num(row.at("block"), "bw_utilization"));
  CHECK(per_gpu < summary.num(row.at("sub-block"), "bw_utilization"));
  // The table prints each headline figure's change against per-gpu.
  CHECK(r.out.find("change against per-gpu") != std::string::npos);
  CHECK(r.out.find('%') != std::string::npos);
}

TEST_CASE("per-gpu strands no free GPU when every job asks a GPU count (--request-shape gpus)",
          "[e2e][metrics]") {
  // per-gpu places a --gpus=G request anywhere G GPUs are free. Under the default `auto` shape a job of a
  // multiple of 4 GPUs asks whole trays, which free GPUs scattered over shared trays cannot give, so
  // only the `gpus` shape makes "fits by count" mean "can be placed".
  const auto dir = scratch_dir("headline-gpus-shape");
  const auto r =
      run_nvlsim("--quiet --policy per-gpu --request-shape gpus --out " + (dir / "out").string(), dir);
  REQUIRE(r.status == 0);
  check_headline_identities(dir / "out");
  const auto summary = read_csv((dir / "out/summary.csv").string());
  REQUIRE(summary.rows.size() == 1);
  CHECK(summary.num(0, "stranded_gpu_hours") == 0);
}

TEST_CASE("timeseries.csv is reproducible, and --sample gives the state at fixed steps", "[e2e][metrics]") {
  const auto dir = scratch_dir("headline-sample");
  const std::string args = "--quiet --policy per-gpu,block --trace " + data_file("theta_100.swf");
  REQUIRE(run_nvlsim(args + " --out " + (dir / "a").string(), dir).status == 0);
  REQUIRE(run_nvlsim(args + " --out " + (dir / "b").string(), dir).status == 0);
  CHECK(slurp((dir / "a/timeseries.csv").string()) == slurp((dir / "b/timeseries.csv").string()));
  REQUIRE(run_nvlsim(args + " --sample 3600 --out " + (dir / "step").string(), dir).status == 0);

  const auto every = read_csv((dir / "a/timeseries.csv").string());
  const auto step = read_csv((dir / "step/timeseries.csv").string());
  REQUIRE(step.rows.size() > 2);
  for (std::size_t r = 0; r < step.rows.size(); ++r) {
    const double t = step.num(r, "time");
    CHECK(std::fmod(t, 3600) == 0);
    // The same state as the latest change at or before t.
    std::size_t in_force = every.rows.size();
    for (std::size_t e = 0; e < every.rows.size(); ++e)
      if (every.at(e, "policy") == step.at(r, "policy") && every.num(e, "time") <= t) in_force = e;
    REQUIRE(in_force < every.rows.size());
    for (const char* column : {"busy_gpus", "free_gpus", "queued_jobs", "stranded_gpus", "held_idle_gpus"})
      CHECK(step.at(r, column) == every.at(in_force, column));
  }
  CHECK(slurp((dir / "step/run.json").string()).find("\"timeseries_step_seconds\": 3600.0") !=
        std::string::npos);
}

TEST_CASE("cost flags set the GPU-hour price in run.json and the _usd columns", "[e2e][metrics][cost]") {
  const auto dir = scratch_dir("headline-cost");
  const std::string trace = " --trace " + data_file("theta_100.swf");
  REQUIRE(
      run_nvlsim("--quiet --gpu-hour-usd 3" + trace + " --out " + (dir / "rental").string(), dir).status ==
      0);
  auto run = nlohmann::json::parse(slurp((dir / "rental/run.json").string()));
  CHECK(run["cost_model"]["basis"] == "rental");
  CHECK(run["cost_model"]["gpu_hour_usd"] == 3.0);
  auto summary = read_csv((dir / "rental/summary.csv").string());
  CHECK(summary.num(0, "idle_cost_usd") == Approx(3 * summary.num(0, "idle_gpu_hours")));

  REQUIRE(run_nvlsim(
              "--quiet --rack-price-usd 0 --rack-power-kw 72 --power-usd-per-kwh 0.5 --amortization-years 2" +
                  trace + " --out " + (dir / "owner").string(),
              dir)
              .status == 0);
  run = nlohmann::json::parse(slurp((dir / "owner/run.json").string()));
  CHECK(run["cost_model"]["basis"] == "owner");
  CHECK(run["cost_model"]["gpu_hour_usd"].get<double>() == Approx(0.5));  // 72 kW x $0.5 / 72 GPUs
  CHECK(run_nvlsim("--gpu-hour-usd -1", dir).status == 2);
  CHECK(run_nvlsim("--sample soon", dir).status == 2);
}

TEST_CASE("fabric utilization integrates the bytes SimGrid carried for a hand-computed job",
          "[e2e][metrics]") {
  // One 8-GPU job in one rack of 2 (144 GPUs), T = 1000 s, f = 0.3: it communicates from 700 s to 1000 s,
  // every one of its 8 GPUs sending at the full 900 GB/s of its port; no InfiniBand traffic.
  // NVLink utilization while it communicates = 8/144; averaged over the 1000 s makespan, 0.3 x 8/144.
  const auto out = replay_on_two_racks(scratch_dir("fabric-utilization"),
                                       "1 0 -1 1000 8 -1 -1 8 5000 -1 1 1 1 1 1 1 -1 -1\n",
                                       "--policy per-gpu --comm-fraction 0.3");
  const auto summary = read_csv((out / "summary.csv").string());
  CHECK(summary.num(0, "nvlink_utilization") == Approx(0.3 * 8 / 144).epsilon(1e-6));
  CHECK(summary.num(0, "ib_utilization") == 0);
  const auto ts = read_csv((out / "timeseries.csv").string());
  // Samples are taken when the cluster's state changes (start at 0, end at 1000), and a sample's
  // utilization is the average over the time it holds: here the whole run.
  REQUIRE(ts.rows.size() == 2);
  CHECK(ts.num(0, "nvlink_util") == Approx(0.3 * 8 / 144).epsilon(1e-6));
}

TEST_CASE("headline metrics keep their identities with failures on every policy",
          "[e2e][metrics][failures]") {
  const std::string platform = std::string(NVLSIM_SOURCE_DIR) + "/platforms/nvl72x8.xml";
  const auto dir = scratch_dir("headline-failures");
  // Llama 3's rates x 100 give a failure every few hours on 576 GPUs: kills, requeues and repairs.
  const auto r = run_nvlsim("--quiet --platform " + platform + " --trace " + data_file("theta_100.swf") +
                                " --policy all --failures llama3 --failure-rate-scale 100 --out " +
                                (dir / "out").string(),
                            dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  check_headline_identities(dir / "out");
  const auto summary = read_csv((dir / "out/summary.csv").string());
  for (std::size_t i = 0; i < summary.rows.size(); ++i) {
    INFO(summary.at(i, "policy"));
    CHECK(summary.num(i, "down_gpu_hours") > 0);
    CHECK(summary.num(i, "goodput") > 0);
    CHECK(summary.num(i, "goodput") <= 1);
  }
}
