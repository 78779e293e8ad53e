// Turning SWF records into jobs: time shift, GPU and time-limit fallbacks, stable order by submit time.

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "models/input_error.hpp"
#include "workloads/trace_jobs.hpp"

namespace fs = std::filesystem;
using nvlsim::InputError;
using nvlsim::Job;
using nvlsim::jobs_from_swf;

namespace {

const fs::path kData = NVLSIM_TEST_DATA;

// A job line with the fields jobs_from_swf uses; the others are unknown.
struct Line {
  long long id = 1;
  double submit = 0;
  double run = 100;
  long long allocated = 1;
  long long requested = -1;
  double requested_time = -1;
};

std::string swf(const std::vector<Line>& lines) {
  std::string text = "; Version: 2.2\n";
  for (const Line& l : lines) {
    text += fmt::format("{} {} -1 {} {} -1 -1 {} {} -1 1 -1 -1 -1 -1 -1 -1 -1\n", l.id, l.submit, l.run,
                        l.allocated, l.requested, l.requested_time);
  }
  return text;
}

std::vector<Job> jobs_of(const std::vector<Line>& lines, const nvlsim::TraceJobOptions& options = {}) {
  std::istringstream in(swf(lines));
  return jobs_from_swf(nvlsim::parse_swf(in, "jobs.swf"), options);
}

constexpr double kNoLimit = std::numeric_limits<double>::infinity();

std::vector<std::int64_t> ids(const std::vector<Job>& jobs) {
  std::vector<std::int64_t> result;
  for (const Job& job : jobs) result.push_back(job.id);
  return result;
}

}  // namespace

TEST_CASE("jobs carry id, run time and line of their record", "[jobs]") {
  const std::vector<Job> jobs = jobs_of({{.id = 7, .submit = 10, .run = 55.5, .allocated = 4}});
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].id == 7);
  CHECK(jobs[0].submit_time == 0);
  CHECK(jobs[0].gpus == 4);
  CHECK(jobs[0].run_time == 55.5);
  CHECK(jobs[0].line == 2);  // after the header line
}

TEST_CASE("submit times shift so the earliest job submits at 0", "[jobs]") {
  const std::vector<Job> jobs =
      jobs_of({{.id = 1, .submit = 1000.5}, {.id = 2, .submit = 500}, {.id = 3, .submit = 2000}});
  REQUIRE(jobs.size() == 3);
  CHECK(ids(jobs) == std::vector<std::int64_t>{2, 1, 3});
  CHECK(jobs[0].submit_time == 0);
  CHECK(jobs[1].submit_time == 500.5);
  CHECK(jobs[2].submit_time == 1500);
  CHECK(jobs[0].line == 3);
  CHECK(jobs[1].line == 2);
  CHECK(jobs[2].line == 4);
}

TEST_CASE("jobs sort by submit time, ties in file order", "[jobs]") {
  const std::vector<Job> jobs = jobs_of({{.id = 5, .submit = 20},
                                         {.id = 3, .submit = 10},
                                         {.id = 9, .submit = 20},
                                         {.id = 1, .submit = 10},
                                         {.id = 4, .submit = 20},
                                         {.id = 2, .submit = 10}});
  CHECK(ids(jobs) == std::vector<std::int64_t>{3, 1, 2, 5, 9, 4});
}

TEST_CASE("GPUs come from allocated, then requested processors, else 0", "[jobs]") {
  const std::vector<Job> jobs = jobs_of({{.id = 1, .allocated = 8, .requested = 16},
                                         {.id = 2, .allocated = -1, .requested = 16},
                                         {.id = 3, .allocated = -1, .requested = -1},
                                         {.id = 4, .allocated = 0, .requested = 2}});
  REQUIRE(jobs.size() == 4);
  CHECK(jobs[0].gpus == 8);
  CHECK(jobs[1].gpus == 16);
  CHECK(jobs[2].gpus == 0);
  CHECK(jobs[3].gpus == 0);  // a known 0 is not unknown
}

TEST_CASE("time limit is the requested time, else no limit, as Slurm's MaxTime=INFINITE", "[jobs]") {
  const std::vector<Line> lines = {{.id = 1, .run = 100, .requested_time = 3600},
                                   {.id = 2, .run = 100, .requested_time = -1},
                                   {.id = 3, .run = -1, .requested_time = -1},
                                   {.id = 4, .run = 0, .requested_time = -1},
                                   {.id = 5, .run = -1, .requested_time = 60}};
  const std::vector<Job> jobs = jobs_of(lines);
  REQUIRE(jobs.size() == 5);
  CHECK(jobs[0].time_limit == 3600);
  CHECK(jobs[0].run_time == 100);
  CHECK(jobs[1].time_limit == kNoLimit);  // not its run time: placement may slow it
  CHECK(jobs[2].time_limit == kNoLimit);
  CHECK(jobs[2].run_time == -1);
  CHECK(jobs[3].time_limit == kNoLimit);
  CHECK(jobs[3].run_time == 0);
  CHECK(jobs[4].time_limit == 60);
  CHECK(jobs[4].run_time == -1);

  SECTION("a default time applies only to unknown requested times, as Slurm's DefaultTime") {
    const std::vector<Job> limited = jobs_of(lines, {.default_time = 7200});
    CHECK(limited[0].time_limit == 3600);
    CHECK(limited[1].time_limit == 7200);
    CHECK(limited[2].time_limit == 7200);
    CHECK(limited[3].time_limit == 7200);
    CHECK(limited[4].time_limit == 60);
  }
}

TEST_CASE("a trace without jobs is an input error that says so", "[jobs][errors]") {
  CHECK_THROWS_WITH(jobs_of({}), "jobs.swf: no jobs (1 lines read)");
  std::istringstream in("; Version: 2.2\nnot a job\n");
  CHECK_THROWS_WITH(jobs_from_swf(nvlsim::parse_swf(in, "bad.swf", {.skip_bad_lines = true})),
                    "bad.swf: no jobs (2 lines read, 1 bad lines skipped)");
}

TEST_CASE("a job number used twice is an input error naming both lines", "[jobs][errors]") {
  CHECK_THROWS_WITH(jobs_of({{.id = 1}, {.id = 2}, {.id = 1, .submit = 5}}),
                    "jobs.swf:4: field 1 (job number): job 1 is already on line 2");
  CHECK(jobs_of({{.id = 1}, {.id = 2}}).size() == 2);
}

TEST_CASE("the largest processor counts divide into GPUs without overflow", "[jobs][errors]") {
  // max + K - 1 would wrap to a negative count that passes as a small job.
  CHECK_THROWS_WITH(jobs_of({{.id = 1, .allocated = std::numeric_limits<long long>::max()}},
                            {.procs_per_gpu = std::numeric_limits<int>::max()}),
                    "jobs.swf:2: field 5 (allocated processors): 4294967299 is too many GPUs");
}

TEST_CASE("a processor count beyond int is an input error", "[jobs][errors]") {
  const long long huge = std::numeric_limits<int>::max() + 1LL;
  try {
    jobs_of({{.id = 1}, {.id = 2, .allocated = -1, .requested = huge}});
    FAIL("no error");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()) ==
          "jobs.swf:3: field 8 (requested processors): 2147483648 is too many GPUs");
  }
  CHECK_THROWS_WITH(jobs_of({{.id = 1, .allocated = huge}}),
                    "jobs.swf:2: field 5 (allocated processors): 2147483648 is too many GPUs");
}

TEST_CASE("sample: theta_100 jobs start at 0 from absolute Unix times", "[jobs][sample]") {
  const std::vector<Job> jobs = jobs_from_swf(nvlsim::read_swf(kData / "theta_100.swf"));
  REQUIRE(jobs.size() == 100);
  CHECK(jobs.front().id == 1);
  CHECK(jobs.front().submit_time == 0);
  CHECK(jobs.front().gpus == 128);
  CHECK(jobs.front().time_limit == 10'800);
  CHECK(jobs.front().run_time == 10'849);
  CHECK(jobs.front().line == 4);
  CHECK(jobs.back().id == 100);
  CHECK(jobs.back().submit_time == 1'641'146'649 - 1'641'021'254);
}

TEST_CASE("sample: NASA jobs, which request no time, have no limit", "[jobs][sample]") {
  const std::vector<Job> jobs = jobs_from_swf(nvlsim::read_swf(kData / "NASA-iPSC-1993-3.1-cln.swf.gz"));
  REQUIRE(jobs.size() == 18'239);
  bool no_limits = true;
  bool gpus_in_range = true;
  for (const Job& job : jobs) {
    no_limits = no_limits && job.time_limit == kNoLimit;
    gpus_in_range = gpus_in_range && job.gpus >= 1 && job.gpus <= 128;
  }
  CHECK(no_limits);
  CHECK(gpus_in_range);
  CHECK(jobs.front().submit_time == 0);
  CHECK(jobs.back().id == 42'264);
  CHECK(jobs.back().submit_time == 7'948'936);
}

TEST_CASE("sample: CQSim jobs 8 and 9 tie and keep file order", "[jobs][sample]") {
  const std::vector<Job> jobs = jobs_from_swf(nvlsim::read_swf(kData / "CQSim-test.swf"));
  CHECK(ids(jobs) == std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  REQUIRE(jobs.size() == 9);
  CHECK(jobs[7].submit_time == 8000);
  CHECK(jobs[8].submit_time == 8000);
  CHECK(jobs[6].time_limit == 3000);
  CHECK(jobs[6].run_time == 2000);
  CHECK(jobs[8].gpus == 10);
}
