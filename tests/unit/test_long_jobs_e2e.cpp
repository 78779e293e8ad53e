// Very long jobs (docs/model.md, "Very long jobs"): a run time of 2147483647 s, the SWF sentinel, once
// made a round's flows overflow a 64-bit byte count, so the job ended early with bandwidth efficiency 62.9.

#include <catch2/catch.hpp>

#include "two_rack_replay.hpp"

using namespace nvlsim::test;

TEST_CASE("a job running 2147483647 s ends at its run time with bandwidth efficiency at most 1",
          "[e2e][long-jobs]") {
  const auto out = replay_on_two_racks(scratch_dir("long-job"),
                                       "1 0 0 2147483647 8 -1 -1 8 2147483647 -1 1 1 1 1 1 -1 -1 -1\n",
                                       "--policy per-gpu");
  const auto jobs = read_csv((out / "jobs.csv").string());
  CHECK(jobs.at(0, "final_state") == "COMPLETED_SUCCESSFULLY");
  CHECK(jobs.num(0, "execution_time") == Approx(2147483647.0).epsilon(1e-9));
  CHECK(jobs.num(0, "bw_efficiency") <= 1.0);
  CHECK(jobs.num(0, "bw_efficiency") > 0.99);  // its GPUs share one domain: as good as ideal
}
