// Failures end to end: a replayed tray failure kills, requeues and delays a job by exactly what it lost;
// a failed NVSwitch slows communication by 18/17; seeded failures are reproducible.

#include <catch2/catch.hpp>

#include <fstream>
#include <map>

#include "nvlsim_process.hpp"

using namespace nvlsim::test;

namespace {

const std::string kTwoRacks = std::string(NVLSIM_SOURCE_DIR) + "/platforms/nvl72x2.xml";

std::string write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

// Rows of one policy, by job_id (jobs.csv) or by (job_id, attempt) (attempts.csv).
std::map<std::string, std::size_t> rows_of(const CsvTable& t, const std::string& policy, bool by_attempt) {
  std::map<std::string, std::size_t> rows;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    if (t.at(r, "policy") != policy) continue;
    const std::string key = t.at(r, "job_id") + (by_attempt ? "/" + t.at(r, "attempt") : "");
    CHECK(rows.emplace(key, r).second);  // every job (attempt) once
  }
  return rows;
}

}  // namespace

TEST_CASE("tray 5 fails at t=1000 for 3600 s: its job is killed, requeued and delayed by exactly its loss",
          "[e2e][failures]") {
  const auto dir = scratch_dir("failure-tray5");
  // Two whole-rack jobs; under the block policies the 3000 s one runs on rack 0 (trays 0-17).
  const auto trace = write(dir / "t.swf",
                           "1 0 0 5000 72 -1 -1 72 6000 -1 1 1 1 1 1 -1 -1 -1\n"
                           "2 0 0 3000 72 -1 -1 72 4000 -1 1 1 1 1 1 -1 -1 -1\n");
  const auto failures = write(dir / "f.csv", "time,component,id,duration\n1000,tray,5,3600\n");
  const double checkpoint = 600, restart = 100;
  const std::string common =
      "--quiet --platform " + kTwoRacks + " --trace " + trace +
      " --policy block,sub-block,per-gpu --checkpoint-interval 600 --restart-overhead 100";
  REQUIRE(run_nvlsim(common + " --out " + (dir / "clean").string(), dir).status == 0);
  const auto r = run_nvlsim(common + " --failures " + failures + " --out " + (dir / "failed").string(), dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto clean = read_csv((dir / "clean/jobs.csv").string());
  const auto jobs = read_csv((dir / "failed/jobs.csv").string());
  const auto attempts = read_csv((dir / "failed/attempts.csv").string());

  for (const std::string policy : {"block", "sub-block", "per-gpu"}) {
    INFO(policy);
    const auto job_rows = rows_of(jobs, policy, false);
    const auto attempt_rows = rows_of(attempts, policy, true);
    CHECK(job_rows.size() == 2);
    CHECK(attempt_rows.size() == 3);  // two jobs, one of them run twice
    // The killed attempt: the job on tray 5 (GPUs 20-23) at the failure.
    std::string victim;
    for (const auto& [key, row] : attempt_rows) {
      if (attempts.at(row, "final_state") != "COMPLETED_KILLED") continue;
      CHECK(victim.empty());
      victim = attempts.at(row, "job_id");
      CHECK(attempts.num(row, "finish_time") == 1000);
      CHECK(attempts.at(row, "reason") == "tray 5 failed");
      CHECK(attempts.at(row, "allocated_resources").find("0-") == 0);  // ran on rack 0
      CHECK(attempts.num(row, "work_done_time") == 1000);
      CHECK(attempts.num(row, "work_kept_time") == 1000 - std::fmod(1000, checkpoint));
    }
    REQUIRE(!victim.empty());
    const std::size_t last = job_rows.at(victim);
    CHECK(jobs.at(last, "final_state") == "COMPLETED_SUCCESSFULLY");
    CHECK(jobs.at(last, "restarts") == "1");
    CHECK(attempt_rows.at(victim + "/1") == attempt_rows.at(victim + "/1"));
    const std::size_t second = attempt_rows.at(victim + "/1");
    CHECK(attempts.at(second, "starting_time") == jobs.at(last, "starting_time"));
    // The second attempt avoids the failed tray while it is down (until 4600).
    if (jobs.num(last, "starting_time") < 4600) {
      CHECK(jobs.at(last, "allocated_resources").find("20-23") == std::string::npos);
    }
    if (policy == "per-gpu") continue;  // per-gpu restarts it across racks, slower by the IB cliff
    const std::size_t before = rows_of(clean, policy, false).at(victim);
    const double lost = std::fmod(1000, checkpoint);
    const double wait = jobs.num(last, "starting_time") - 1000;
    CHECK(wait >= 0);
    CHECK(jobs.num(last, "finish_time") - clean.num(before, "finish_time") ==
          Approx(lost + restart + wait).margin(1e-6));
    // Under block the repaired rack is the only place it fits: it waits for the repair at 4600.
    if (policy == "block") CHECK(jobs.num(last, "starting_time") == 4600);
  }
  const auto summary = read_csv((dir / "failed/summary.csv").string());
  for (std::size_t i = 0; i < summary.rows.size(); ++i) {
    INFO(summary.at(i, "policy"));
    CHECK(summary.num(i, "jobs_killed") == 1);
    CHECK(summary.num(i, "down_gpu_hours") == Approx(4.0));  // 4 GPUs for one hour
    CHECK(summary.num(i, "lost_work_gpu_hours") == Approx(72 * (400.0) / 3600));
  }
}

TEST_CASE("a failed NVSwitch slows an in-rack job's communication by 18/17", "[e2e][failures]") {
  const auto dir = scratch_dir("failure-nvswitch");
  // Two 8-GPU jobs, one per rack (per-gpu best fit puts the second on the emptier... same-size rack, so
  // place them by size instead: 68 GPUs fill rack 0 apart from one tray).
  const auto trace = write(dir / "t.swf",
                           "1 0 0 1000 72 -1 -1 72 2000 -1 1 1 1 1 1 -1 -1 -1\n"
                           "2 0 0 1000 72 -1 -1 72 2000 -1 1 1 1 1 1 -1 -1 -1\n");
  // Switch 3 of rack 0 fails before anything starts and stays down.
  const auto failures = write(dir / "f.csv", "time,component,id,duration\n0,nvswitch,3,100000\n");
  const auto r = run_nvlsim("--quiet --platform " + kTwoRacks + " --trace " + trace +
                                " --policy block --comm-fraction 0.3 --failures " + failures + " --out " +
                                (dir / "out").string(),
                            dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto jobs = read_csv((dir / "out/jobs.csv").string());
  REQUIRE(jobs.rows.size() == 2);
  int checked = 0;
  for (std::size_t i = 0; i < jobs.rows.size(); ++i) {
    const bool rack0 = jobs.at(i, "allocated_resources") == "0-71";
    INFO(jobs.at(i, "allocated_resources"));
    CHECK(jobs.at(i, "final_state") == "COMPLETED_SUCCESSFULLY");
    // 700 s computing, then 300 s of communication at 17/18 of the ports' bandwidth.
    const double expected = rack0 ? 700 + 300.0 * 18 / 17 : 1000;
    CHECK(jobs.num(i, "execution_time") == Approx(expected).epsilon(1e-9));
    CHECK(jobs.num(i, "bw_efficiency") == Approx(rack0 ? 17.0 / 18 : 1.0).epsilon(1e-9));
    checked += rack0;
  }
  CHECK(checked == 1);
  // NVSwitch failures take no GPU down and kill nothing.
  const auto summary = read_csv((dir / "out/summary.csv").string());
  CHECK(summary.num(0, "down_gpu_hours") == 0);
  CHECK(summary.num(0, "jobs_killed") == 0);
}

TEST_CASE("the same seed gives the same failures and outputs, another seed other failures",
          "[e2e][failures]") {
  const auto dir = scratch_dir("failure-seed");
  const std::string args = "--quiet --trace " + data_file("theta_100.swf") +
                           " --policy per-gpu,block --failures llama3 --failure-rate-scale 100";
  REQUIRE(run_nvlsim(args + " --seed 5 --out " + (dir / "a").string(), dir).status == 0);
  REQUIRE(run_nvlsim(args + " --seed 5 --out " + (dir / "b").string(), dir).status == 0);
  REQUIRE(run_nvlsim(args + " --seed 6 --out " + (dir / "c").string(), dir).status == 0);
  for (const char* file : {"jobs.csv", "attempts.csv", "summary.csv", "timeseries.csv"}) {
    INFO(file);
    CHECK(slurp((dir / "a" / file).string()) == slurp((dir / "b" / file).string()));
  }
  const auto attempts = read_csv((dir / "a/attempts.csv").string());
  const auto jobs = read_csv((dir / "a/jobs.csv").string());
  CHECK(attempts.rows.size() > jobs.rows.size());  // some job was killed and ran again
  CHECK(slurp((dir / "a/timeseries.csv").string()) != slurp((dir / "c/timeseries.csv").string()));
}

TEST_CASE("a bad failures file stops the run with its place named and status 2", "[e2e][failures][errors]") {
  const auto dir = scratch_dir("failure-errors");
  const auto csv = write(dir / "bad.csv", "time,component,id,duration\n10,gpu,999999,5\n");
  const auto r = run_nvlsim("--quiet --failures " + csv + " --out " + (dir / "o").string(), dir);
  CHECK(r.status == 2);
  CHECK(r.err.find(csv + ":2: field 3 (id)") != std::string::npos);
  const auto json = write(dir / "bad.json", R"({"components": {"gpu": {"mttr_hours": "long"}}})");
  const auto j = run_nvlsim("--quiet --failures " + json + " --out " + (dir / "o").string(), dir);
  CHECK(j.status == 2);
  CHECK(j.err.find(json + ": components.gpu.mttr_hours") != std::string::npos);
  CHECK(run_nvlsim("--quiet --failure-rate-scale 0 --failures llama3", dir).status == 2);
}
