// The same failure on GB200 NVL72 and on Vera Rubin NVL144: one tray down in an idle rack, a whole-block
// job queued. NVL72 closes the block until the repair; NVLink 6's partial operation isolates the tray and
// the job starts at once on the other trays.

#include <catch2/catch.hpp>

#include <fstream>

#include "nvlsim_process.hpp"

using namespace nvlsim::test;

namespace {

std::string write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

struct BlockRun {
  double start = 0;       // of the 64-GPU job
  std::string gpus;       // its allocated_resources
  int max_stranded = -1;  // the largest failure_stranded_gpus of the run
};

// One rack of `system` (with extra `nvlsim platform` flags), the trace and failures below, under block.
BlockRun run_block(const std::filesystem::path& dir, const std::string& system, const std::string& flags) {
  const std::string platform = (dir / (system + ".xml")).string();
  const auto made =
      run_nvlsim("platform --system " + system + " --racks 1 " + flags + " -o " + platform, dir);
  INFO(made.err);
  REQUIRE(made.status == 0);
  // A one-tray job ends before tray 5 fails at 20 s for an hour; at 60 s a 16-tray job arrives.
  const auto trace = write(dir / "t.swf",
                           "1 0 0 10 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n"
                           "2 60 0 1000 64 -1 -1 64 2000 -1 1 1 1 1 1 -1 -1 -1\n");
  const auto failures = write(dir / "f.csv", "time,component,id,duration\n20,tray,5,3600\n");
  const auto out = dir / ("out-" + system);
  const auto r = run_nvlsim("--quiet --platform " + platform + " --trace " + trace +
                                " --policy block --failures " + failures + " --out " + out.string(),
                            dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  BlockRun run;
  const auto jobs = read_csv((out / "jobs.csv").string());
  for (std::size_t row = 0; row < jobs.rows.size(); ++row) {
    if (jobs.at(row, "job_id") != "2") continue;
    CHECK(jobs.at(row, "final_state") == "COMPLETED_SUCCESSFULLY");
    run.start = jobs.num(row, "starting_time");
    run.gpus = jobs.at(row, "allocated_resources");
  }
  const auto series = read_csv((out / "timeseries.csv").string());
  for (std::size_t row = 0; row < series.rows.size(); ++row)
    run.max_stranded = std::max(run.max_stranded, static_cast<int>(series.num(row, "failure_stranded_gpus")));
  return run;
}

}  // namespace

TEST_CASE(
    "a down tray closes an NVL72 block until repaired but under partial operation the job starts at once",
    "[e2e][failures]") {
  const auto dir = scratch_dir("partial-operation");
  const double repaired = 20 + 3600;

  const BlockRun nvl72 = run_block(dir, "gb200-nvl72", "");
  CHECK(nvl72.start >= repaired);
  CHECK(nvl72.max_stranded == 17 * 4);  // the idle rack's 17 healthy trays, for the hour

  for (const auto& [system, flags] :
       {std::pair{"vr-nvl144", ""}, std::pair{"gb200-nvl72", "--partial-operation 1"}}) {
    INFO(system << " " << flags);
    const BlockRun partial = run_block(dir, system, flags);
    CHECK(partial.start == 60);
    CHECK(partial.gpus == "0-19 24-67");  // 16 trays, skipping the isolated tray 5 (GPUs 20-23)
    CHECK(partial.max_stranded == 0);     // the tray is wholly down; the block's other trays are usable
  }
  // And the override works the other way: NVLink 6 without partial operation behaves as NVL72.
  const BlockRun off = run_block(dir, "vr-nvl144", "--partial-operation 0");
  CHECK(off.start >= repaired);
}
