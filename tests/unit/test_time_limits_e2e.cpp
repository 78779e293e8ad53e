// Time limits as Slurm sets them: the requested time when the trace gives one, else --default-time (the
// partition's DefaultTime), else none (MaxTime=INFINITE). A job whose limit is only its trace run time
// would be killed the moment placement slows it, which is what these runs check no longer happens.

#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "nvlsim_process.hpp"
#include "workloads/swf_reader.hpp"

using namespace nvlsim::test;

namespace {

const std::string kPlatform = std::string(NVLSIM_SOURCE_DIR) + "/platforms/nvl72x2.xml";

// 68 GPUs fill trays 0-16 of rack 0, so the 8-GPU job 2 (1000 s in the trace, requested time as given)
// is split over two racks and runs about 1455 s (see test_end_to_end.cpp for the arithmetic).
std::string slowed_trace(const std::filesystem::path& dir, const std::string& requested_time) {
  const auto path = dir / "t.swf";
  std::ofstream(path) << "1 0 -1 100000 68 -1 -1 68 200000 -1 1 1 1 1 1 1 -1 -1\n"
                         "2 1 -1 1000 8 -1 -1 8 "
                      << requested_time << " -1 1 1 1 1 1 1 -1 -1\n";
  return path.string();
}

CsvTable run(const std::filesystem::path& dir, const std::string& trace, const std::string& flags,
             const std::string& out) {
  const auto r = run_nvlsim("--quiet --policy per-gpu --platform " + kPlatform + " --trace " + trace +
                                " --write-swf " + flags + " --out " + (dir / out).string(),
                            dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return read_csv((dir / out / "jobs.csv").string());
}

}  // namespace

TEST_CASE("a job with no requested time that placement slows runs to its end by default", "[e2e][walltime]") {
  const auto dir = scratch_dir("no-limit");
  const auto jobs = run(dir, slowed_trace(dir, "-1"), "", "out");
  REQUIRE(jobs.at(1, "domains") == "2");  // the premise: placement slows it
  CHECK(jobs.at(1, "final_state") == "COMPLETED_SUCCESSFULLY");
  CHECK(jobs.num(1, "execution_time") == Approx(1455).epsilon(0.01));
  CHECK(jobs.at(1, "requested_time").empty());  // no limit: undefined
  CHECK(jobs.num(0, "requested_time") == 200000);
  // The schedule keeps SWF's "unknown" rather than writing an infinity.
  const auto schedule = nvlsim::read_swf((dir / "out/schedule-per-gpu.swf").string());
  REQUIRE(schedule.records.size() == 2);
  CHECK(schedule.records[1].requested_time == -1);
  CHECK(schedule.records[0].requested_time == 200000);
  const auto manifest = nlohmann::json::parse(slurp((dir / "out/run.json").string()));
  CHECK(manifest["job_model"]["default_time_seconds"].is_null());
}

TEST_CASE("a default time S (--default-time) is the limit of a job with no requested time, killed there",
          "[e2e][walltime]") {
  const auto dir = scratch_dir("default-time");
  const auto trace = slowed_trace(dir, "-1");
  auto jobs = run(dir, trace, "--default-time 1300", "limited");
  REQUIRE(jobs.at(1, "domains") == "2");
  CHECK(jobs.at(1, "final_state") == "COMPLETED_WALLTIME_REACHED");
  CHECK(jobs.num(1, "execution_time") == 1300);
  CHECK(jobs.num(1, "requested_time") == 1300);
  CHECK(jobs.at(0, "final_state") == "COMPLETED_SUCCESSFULLY");  // its own limit, 200000 s, holds
  const auto schedule = nvlsim::read_swf((dir / "limited/schedule-per-gpu.swf").string());
  CHECK(schedule.records.at(1).requested_time == 1300);
  const auto manifest = nlohmann::json::parse(slurp((dir / "limited/run.json").string()));
  CHECK(manifest["job_model"]["default_time_seconds"] == 1300.0);

  // A default longer than the slowed run kills nothing.
  jobs = run(dir, trace, "--default-time 2000", "long");
  CHECK(jobs.at(1, "final_state") == "COMPLETED_SUCCESSFULLY");
  // --no-walltime-kill still turns killing off.
  jobs = run(dir, trace, "--default-time 1300 --no-walltime-kill", "nokill");
  CHECK(jobs.at(1, "final_state") == "COMPLETED_SUCCESSFULLY");
}

TEST_CASE("a job with a requested time is still killed at it, whatever --default-time says",
          "[e2e][walltime]") {
  const auto dir = scratch_dir("requested-limit");
  const auto trace = slowed_trace(dir, "1200");
  for (const char* flags : {"", "--default-time 5000"}) {
    INFO("flags: " << flags);
    const auto jobs = run(dir, trace, flags, *flags ? "default" : "plain");
    REQUIRE(jobs.at(1, "domains") == "2");
    CHECK(jobs.at(1, "final_state") == "COMPLETED_WALLTIME_REACHED");
    CHECK(jobs.num(1, "execution_time") == 1200);
    CHECK(jobs.num(1, "requested_time") == 1200);
  }
}

TEST_CASE("jobs queued behind a job without a limit still start, backfilled or in order", "[e2e][walltime]") {
  const auto dir = scratch_dir("no-limit-queue");
  const auto trace = dir / "t.swf";
  // Job 1 (no limit) holds 100 of 144 GPUs; job 2 waits for it (a reservation at "never"); job 3 fits
  // beside it and backfills. Everything ends, and job 2 starts when job 1 really ends (its 100 GPUs
  // span both racks, so a little after its trace's 1000 s).
  std::ofstream(trace) << "1 0 -1 1000 100 -1 -1 100 -1 -1 1 1 1 1 1 1 -1 -1\n"
                          "2 1 -1 500 100 -1 -1 100 600 -1 1 1 1 1 1 1 -1 -1\n"
                          "3 2 -1 100 8 -1 -1 8 -1 -1 1 1 1 1 1 1 -1 -1\n";
  const auto jobs = run(dir, trace.string(), "", "out");
  REQUIRE(jobs.rows.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(jobs.at(i, "final_state") == "COMPLETED_SUCCESSFULLY");
  CHECK(jobs.num(1, "starting_time") == Approx(jobs.num(0, "finish_time")));
  CHECK(jobs.num(2, "starting_time") <= 30);  // at the first backfill pass (bf_interval 30 s)
}

TEST_CASE("a default time must be a positive number of seconds", "[e2e][walltime][errors]") {
  const auto dir = scratch_dir("default-time-errors");
  for (const char* value : {"0", "-5", "soon"}) {
    const auto r = run_nvlsim(std::string("--quiet --default-time ") + value, dir);
    CHECK(r.status == 2);
    CHECK(r.err.find("nvlsim: --default-time: ") == 0);
  }
}
