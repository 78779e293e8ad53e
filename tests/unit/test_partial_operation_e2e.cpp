// The same failure on GB200 NVL72 and on Vera Rubin NVL144: one tray down in an idle rack, a 16-tray job
// queued under block. Slurm leaves the down tray out of its block on both, so the job starts at once on the
// other trays; nvlsim's min_block_nodes=18 closes the rack until the repair instead.

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

// One rack of `system` (with extra `nvlsim platform` flags), the trace and failures below, under `policy`.
BlockRun run_block(const std::filesystem::path& dir, const std::string& system, const std::string& flags,
                   const std::string& policy = "block") {
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
  const auto r = run_nvlsim("--quiet --platform " + platform + " --trace " + trace + " --policy " + policy +
                                " --failures " + failures + " --out " + out.string(),
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

TEST_CASE("a down tray leaves its rack's other trays to a block job, on NVL72 and Vera Rubin alike",
          "[e2e][failures]") {
  const auto dir = scratch_dir("partial-operation");
  for (const auto& [system, flags] : {std::pair{"gb200-nvl72", ""}, std::pair{"vr-nvl144", ""},
                                      std::pair{"vr-nvl144", "--partial-operation 0"}}) {
    INFO(system << " " << flags);
    const BlockRun run = run_block(dir, system, flags);
    CHECK(run.start == 60);
    CHECK(run.gpus == "0-19 24-67");  // 16 trays, skipping the down tray 5 (GPUs 20-23)
    CHECK(run.max_stranded == 0);     // the tray is wholly down; the rack's other trays are usable
  }
  // nvlsim's own operator rule: a rack needs its 18 trays, so the job waits for the repair.
  const BlockRun closed = run_block(dir, "gb200-nvl72", "", "block:min_block_nodes=18");
  CHECK(closed.start >= 20 + 3600);
  CHECK(closed.max_stranded == 17 * 4);  // the idle rack's 17 healthy trays, for the hour
}
