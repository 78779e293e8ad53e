// Workload features end to end through the nvlsim binary: --fit for CPU traces, the class column,
// --classes, and --write-swf.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "nvlsim_process.hpp"
#include "schedulers/policy_registry.hpp"
#include "workloads/swf_reader.hpp"

namespace fs = std::filesystem;
using namespace nvlsim::test;

namespace {

const std::string kPlatform8 = std::string(NVLSIM_SOURCE_DIR) + "/platforms/nvl72x8.xml";

// Rows rejected because of their size (the reasons in docs/output.md that are about GPU counts).
std::size_t rejected_for_size(const CsvTable& jobs) {
  std::size_t n = 0;
  for (std::size_t r = 0; r < jobs.rows.size(); ++r) {
    const std::string& reason = jobs.at(r, "reason");
    if (reason.find("GPUs, the platform has") != std::string::npos ||
        reason.find("cannot place") != std::string::npos)
      ++n;
  }
  return n;
}

// A CPU trace from a 2004-processor machine: jobs up to the whole machine.
fs::path cpu_trace(const fs::path& dir) {
  const auto path = dir / "cpu2004.swf";
  std::ofstream out(path);
  out << "; Version: 2.2\n; Computer: made-up 2004-core machine\n; MaxProcs: 2004\n";
  const int sizes[] = {1, 16, 128, 500, 1000, 2004, 64, 2004, 7, 1500};
  for (int i = 0; i < 10; ++i)
    out << fmt::format("{} {} -1 {} {} -1 -1 {} {} -1 1 1 1 1 1 1 -1 -1\n", i + 1, i * 600, 3000 + 100 * i,
                       sizes[i], sizes[i], 7200);
  return path;
}

}  // namespace

TEST_CASE("fitting CPU traces (--fit) runs them on nvl72x8 with no job rejected for size, K in run.json",
          "[fit][e2e]") {
  const auto dir = scratch_dir("fit");
  const auto trace = cpu_trace(dir);
  auto r = run_nvlsim("--quiet --platform " + kPlatform8 + " --trace " + trace.string() +
                          " --policy all --out " + (dir / "plain").string(),
                      dir);
  REQUIRE(r.status == 0);
  CHECK(rejected_for_size(read_csv((dir / "plain/jobs.csv").string())) > 0);  // without --fit, 2004 > 576

  r = run_nvlsim("--quiet --fit --platform " + kPlatform8 + " --trace " + trace.string() +
                     " --policy all --out " + (dir / "fit").string(),
                 dir);
  REQUIRE(r.status == 0);
  const auto jobs = read_csv((dir / "fit/jobs.csv").string());
  CHECK(jobs.rows.size() == 10 * nvlsim::policy_names().size());  // the 10 jobs under every policy
  CHECK(rejected_for_size(jobs) == 0);
  // Under topology/block a GPU count stays in one rack: the jobs of more than 72 GPUs that are no multiple
  // of a tray ask `--gpus=G` (--request-shape auto), which Slurm refuses, saying why.
  for (std::size_t row = 0; row < jobs.rows.size(); ++row) {
    const int gpus = std::stoi(jobs.at(row, "requested_number_of_resources"));
    const bool block = jobs.at(row, "policy").find("block") != std::string::npos;
    INFO(jobs.at(row, "policy") << " job " << jobs.at(row, "job_id"));
    CHECK((jobs.at(row, "final_state") == "REJECTED") == (block && gpus > 72 && gpus % 4 != 0));
    if (jobs.at(row, "final_state") == "REJECTED")
      CHECK_THAT(jobs.at(row, "reason"), Catch::Contains("stays in one base block"));
  }
  CHECK(jobs.at(5, "requested_number_of_resources") == "501");  // ceil(2004 / 4)
  const auto run_json = slurp((dir / "fit/run.json").string());
  CHECK(run_json.find("\"procs_per_gpu\": 4") != std::string::npos);
  CHECK(run_json.find("\"fit\": true") != std::string::npos);

  r = run_nvlsim("--quiet --fit --policy per-gpu --platform " + kPlatform8 + " --trace " +
                     data_file("NASA-iPSC-1993-3.1-cln.swf.gz") + " --out " + (dir / "nasa").string(),
                 dir);
  REQUIRE(r.status == 0);
  const auto nasa = read_csv((dir / "nasa/jobs.csv").string());
  CHECK(nasa.rows.size() == 18239);
  CHECK(rejected_for_size(nasa) == 0);
  CHECK(slurp((dir / "nasa/run.json").string()).find("\"procs_per_gpu\": 1") != std::string::npos);

  r = run_nvlsim("--fit --procs-per-gpu 2", dir);
  CHECK(r.status == 2);
  CHECK(r.err == "nvlsim: --fit: chooses --procs-per-gpu itself; give one or the other\n");
}

TEST_CASE("jobs.csv names each job's class, --classes maps SWF fields, --write-swf writes the schedule",
          "[classes][e2e]") {
  const auto dir = scratch_dir("classes-e2e");
  const auto trace = cpu_trace(dir);
  std::ofstream(dir / "classes.json") << R"({"map": [{"field": "user", "value": 1, "class": "finetune"}]})";
  auto r = run_nvlsim("--quiet --write-swf --classes " + (dir / "classes.json").string() + " --platform " +
                          kPlatform8 + " --procs-per-gpu 4 --trace " + trace.string() +
                          " --policy per-gpu,block --out " + (dir / "out").string(),
                      dir);
  REQUIRE(r.status == 0);
  const auto jobs = read_csv((dir / "out/jobs.csv").string());
  CHECK(jobs.column.at("class") == jobs.column.size() - 2);  // before gpu_share, the last
  for (std::size_t i = 0; i < jobs.rows.size(); ++i) CHECK(jobs.at(i, "class") == "finetune");
  CHECK(slurp((dir / "out/run.json").string()).find("\"default\": \"hpc\"") != std::string::npos);

  // The schedule replays: same jobs, waits filled in, classes kept through the header.
  const auto schedule = nvlsim::read_swf(dir / "out/schedule-per-gpu.swf");
  REQUIRE(schedule.records.size() == 10);
  REQUIRE(fs::exists(dir / "out/schedule-block.swf"));
  for (std::size_t i = 0; i < 10; ++i) {
    const auto& rec = schedule.records[i];
    const std::size_t row = 10 + i;  // jobs.csv: block's rows, then per-gpu's
    REQUIRE(jobs.at(row, "policy") == "per-gpu");
    CHECK(rec.job_number == static_cast<std::int64_t>(i + 1));
    CHECK(rec.wait_time == jobs.num(row, "waiting_time"));
    CHECK(rec.run_time == jobs.num(row, "execution_time"));
    CHECK(rec.requested_processors == std::stoll(jobs.at(row, "requested_number_of_resources")));
  }
  r = run_nvlsim("--quiet --platform " + kPlatform8 + " --trace " +
                     (dir / "out/schedule-per-gpu.swf").string() + " --out " + (dir / "replay").string(),
                 dir);
  REQUIRE(r.status == 0);
  const auto replay = read_csv((dir / "replay/jobs.csv").string());
  for (std::size_t i = 0; i < replay.rows.size(); ++i) CHECK(replay.at(i, "class") == "finetune");

  std::ofstream(dir / "bad.json") << R"({"classes": []})";
  r = run_nvlsim("--classes " + (dir / "bad.json").string(), dir);
  CHECK(r.status == 2);
  CHECK(r.err == (dir / "bad.json").string() + ": classes: expected a non-empty list\n");
}
