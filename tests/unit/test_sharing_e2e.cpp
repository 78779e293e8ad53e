// --gpu-sharing end to end: fractional jobs pack several to a GPU under per-gpu, faster than whole GPUs
// on a saturated rack; reruns are identical; `none` is no flag at all; policies of whole GPUs are refused;
// a failed GPU kills every job sharing it; the flags are checked, recorded and sweepable.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "nvlsim_process.hpp"
#include "sim/cli/sweep_keys.hpp"

namespace fs = std::filesystem;
using namespace nvlsim;
using namespace nvlsim::test;

namespace {

// One rack: a 64-GPU job for ten hours beside 64 one-hour jobs asking a quarter of a GPU each, all at t = 0,
// so the fractions have 8 GPUs: one job at a time each (8 waves of an hour), or 4 shards each (2 waves).
std::string quarter_jobs_trace(bool with_big_job) {
  std::string swf = "; Field19: gpu_milli\n";
  if (with_big_job) swf += "1 0 -1 36000 64 -1 -1 64 40000 -1 1 1 1 1 1 -1 -1 -1 -1\n";
  for (int j = 2; j <= 65; ++j)
    swf += std::to_string(j) + " 0 -1 3600 1 -1 -1 1 7200 -1 1 1 1 3 1 -1 -1 -1 250\n";
  return swf;
}

std::string write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

ProcessResult run(const fs::path& dir, const std::string& trace, const std::string& flags,
                  const std::string& out) {
  return run_nvlsim(
      "--quiet --platform nvl72x1 --trace " + trace + " " + flags + " --out " + (dir / out).string(), dir);
}

struct Span {
  double start, finish;
  std::string job;
};

// The jobs.csv rows of one GPU jobs (allocated_resources a single id), by GPU.
std::map<std::string, std::vector<Span>> one_gpu_jobs(const CsvTable& jobs) {
  std::map<std::string, std::vector<Span>> by_gpu;
  for (std::size_t r = 0; r < jobs.rows.size(); ++r) {
    const std::string& gpus = jobs.at(r, "allocated_resources");
    if (gpus.find_first_of("- ") != std::string::npos) continue;
    by_gpu[gpus].push_back({jobs.num(r, "starting_time"), jobs.num(r, "finish_time"), jobs.at(r, "job_id")});
  }
  return by_gpu;
}

// The most jobs running at once on any one GPU.
int most_jobs_on_a_gpu(const CsvTable& jobs) {
  int most = 0;
  for (const auto& [gpu, spans] : one_gpu_jobs(jobs))
    for (const Span& s : spans) {
      const auto together = std::ranges::count_if(
          spans, [&](const Span& o) { return o.start <= s.start && s.start < o.finish; });
      most = std::max(most, static_cast<int>(together));
    }
  return most;
}

// When the last job of one GPU ended.
double last_one_gpu_finish(const CsvTable& jobs) {
  double last = 0;
  for (const auto& [gpu, spans] : one_gpu_jobs(jobs))
    for (const Span& s : spans) last = std::max(last, s.finish);
  return last;
}

double summary_of(const fs::path& out, const std::string& column) {
  return read_csv((out / "summary.csv").string()).num(0, column);
}

}  // namespace

TEST_CASE("under --gpu-sharing shard, quarter-GPU jobs run four to a GPU and finish sooner",
          "[sharing][e2e]") {
  const auto dir = scratch_dir("sharing-pack");
  const auto trace = write(dir / "t.swf", quarter_jobs_trace(true));
  for (const std::string mode : {"none", "shard", "mps"}) {
    // Placement alone: no interference (the next test has it).
    const std::string flags = mode == "none" ? "" : " --sharing-interference 0";
    const auto r = run(dir, trace, "--policy per-gpu --gpu-sharing " + mode + flags, mode);
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  const auto none = read_csv((dir / "none/jobs.csv").string());
  const auto shard = read_csv((dir / "shard/jobs.csv").string());
  CHECK(most_jobs_on_a_gpu(none) == 1);
  CHECK(most_jobs_on_a_gpu(shard) == 4);
  // Whole GPUs: the 8 left by the big job run the 64 quarters in 8 waves; shards: in 2.
  CHECK(last_one_gpu_finish(none) == 8 * 3600);
  CHECK(last_one_gpu_finish(shard) == 2 * 3600);
  CHECK(summary_of(dir / "shard", "mean_waiting_time") == Approx(32 * 3600 / 65.0));
  CHECK(summary_of(dir / "none", "mean_waiting_time") == Approx(8 * 3600 * 28 / 65.0));
  CHECK(summary_of(dir / "shard", "makespan") == summary_of(dir / "none", "makespan"));
  const auto summary = read_csv((dir / "shard/summary.csv").string());
  CHECK(summary.num(0, "nb_jobs_success") == 65);
  // The timeseries counts a GPU shared by four jobs once: the big job's 64 and the 8 shared ones.
  const auto series = read_csv((dir / "shard/timeseries.csv").string());
  CHECK(series.num(0, "busy_gpus") == 72);
  CHECK(series.num(0, "free_gpus") == 0);
  // MPS at 25 of 100 each: Slurm's one_sharing keeps a tray's MPS jobs on one GPU, so the two trays the
  // big job leaves serve four jobs each, on one GPU each.
  const auto mps = read_csv((dir / "mps/jobs.csv").string());
  CHECK(most_jobs_on_a_gpu(mps) == 4);
  CHECK(last_one_gpu_finish(mps) == 8 * 3600);
}

TEST_CASE("jobs sharing a GPU compute at 1/(1+F(k-1)), and count by their share of it", "[sharing][e2e]") {
  // Three quarter-GPU jobs of 1000 s, two at t = 0 and one at 500: all on GPU 0 (shard rules 2 and 3;
  // under MPS the tray's one MPS GPU). With F = 0.5, two jobs compute at 1/1.5 and three at 1/2:
  // the first two have done 500/1.5 s by 500 and finish at 500 + (1000 - 500/1.5) x 2; the third has
  // done (that - 500)/2 by then, and alone finishes the rest at full speed.
  const auto dir = scratch_dir("sharing-interference");
  const auto trace = write(dir / "t.swf",
                           "; Field19: gpu_milli\n"
                           "1 0 -1 1000 1 -1 -1 1 9000 -1 1 1 1 3 1 -1 -1 -1 250\n"
                           "2 0 -1 1000 1 -1 -1 1 9000 -1 1 1 1 3 1 -1 -1 -1 250\n"
                           "3 500 -1 1000 1 -1 -1 1 9000 -1 1 1 1 3 1 -1 -1 -1 250\n");
  const double pair_end = 500 + (1000 - 500 / 1.5) * 2;
  const double third_end = pair_end + 1000 - (pair_end - 500) / 2;
  for (const std::string mode : {"shard", "mps"}) {
    INFO(mode);
    const auto r =
        run(dir, trace, "--policy per-gpu --gpu-sharing " + mode + " --sharing-interference 0.5", mode);
    INFO(r.err);
    REQUIRE(r.status == 0);
    const auto jobs = read_csv((dir / mode / "jobs.csv").string());
    REQUIRE(jobs.rows.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(jobs.at(i, "allocated_resources") == "0");
      CHECK(jobs.num(i, "gpu_share") == 0.25);
    }
    CHECK(jobs.num(0, "finish_time") == Approx(pair_end));
    CHECK(jobs.num(1, "finish_time") == Approx(pair_end));
    CHECK(jobs.num(2, "finish_time") == Approx(third_end));
    // GPU-time counts a quarter of the GPU per job: busy, and the slowdown beyond the trace's 1000 s.
    const double busy = 0.25 * (2 * pair_end + third_end - 500);
    CHECK(summary_of(dir / mode, "gpu_utilization") == Approx(busy / (72 * third_end)));
    CHECK(summary_of(dir / mode, "slowdown_gpu_hours") == Approx((busy - 3 * 250.0) / 3600));
  }
  // Without interference the three run at full speed.
  const auto r = run(dir, trace, "--policy per-gpu --gpu-sharing shard --sharing-interference 0", "free");
  REQUIRE(r.status == 0);
  const auto jobs = read_csv((dir / "free/jobs.csv").string());
  CHECK(jobs.num(0, "finish_time") == 1000);
  CHECK(jobs.num(2, "finish_time") == 1500);
  CHECK(summary_of(dir / "free", "slowdown_gpu_hours") == 0);
}

TEST_CASE("a sharing run is deterministic, and --gpu-sharing none is the run without the flag",
          "[sharing][e2e]") {
  const auto dir = scratch_dir("sharing-repeat");
  auto r = run_nvlsim("workload mix --jobs 300 --gpus 72 --fractional-share 1 --seed 2 --load 1.5 -o " +
                          (dir / "mix.swf").string(),
                      dir);
  REQUIRE(r.status == 0);
  const std::string trace = (dir / "mix.swf").string();
  for (const auto& [flags, out] :
       std::vector<std::pair<std::string, std::string>>{{"--gpu-sharing shard --shards-per-gpu 8", "a"},
                                                        {"--gpu-sharing shard --shards-per-gpu 8", "b"},
                                                        {"--gpu-sharing none", "none"},
                                                        {"", "default"}}) {
    r = run(dir, trace, "--policy per-gpu " + flags, out);
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  const auto jobs = read_csv((dir / "a/jobs.csv").string());
  CHECK(most_jobs_on_a_gpu(jobs) > 1);
  for (const std::string file : {"jobs.csv", "attempts.csv", "summary.csv", "timeseries.csv"}) {
    INFO(file);
    CHECK(slurp((dir / "a" / file).string()) == slurp((dir / "b" / file).string()));
    CHECK(slurp((dir / "none" / file).string()) == slurp((dir / "default" / file).string()));
    CHECK(slurp((dir / "a" / file).string()) != slurp((dir / "none" / file).string()));
  }
  // run.json records the setting with the job model.
  const std::string shard_json = slurp((dir / "a/run.json").string());
  CHECK(shard_json.find(
            "\"gpu_sharing\": \"shard\",\n    \"shards_per_gpu\": 8,\n    \"sharing_interference\": 0.081") !=
        std::string::npos);
  const std::string none_json = slurp((dir / "default/run.json").string());
  CHECK(none_json.find("\"gpu_sharing\": \"none\",\n    \"shards_per_gpu\": null,\n    "
                       "\"sharing_interference\": null\n") != std::string::npos);
}

TEST_CASE("every policy replays a fractional trace with sharing on, and block gives each job its rack",
          "[sharing][e2e]") {
  const auto dir = scratch_dir("sharing-policies");
  const auto trace = write(dir / "t.swf", quarter_jobs_trace(false));
  for (const std::string policy : {"per-gpu", "tree", "sub-block", "block"}) {
    INFO(policy);
    const auto r =
        run(dir, trace, "--policy " + policy + " --gpu-sharing shard --sharing-interference 0", policy);
    INFO(r.err);
    REQUIRE(r.status == 0);
    const auto jobs = read_csv((dir / policy / "jobs.csv").string());
    CHECK(summary_of(dir / policy, "nb_jobs_success") == 64);
    if (policy == "block") {
      // --exclusive=topo: one job per rack at a time, on a whole GPU; 64 one-hour waves.
      CHECK(most_jobs_on_a_gpu(jobs) == 1);
      CHECK(jobs.num(0, "gpu_share") == 1);
      CHECK(last_one_gpu_finish(jobs) == 64 * 3600);
    } else {
      // 16 GPUs of 4 quarters each, one wave.
      CHECK(most_jobs_on_a_gpu(jobs) == 4);
      CHECK(jobs.num(0, "gpu_share") == 0.25);
      CHECK(last_one_gpu_finish(jobs) == 3600);
    }
  }
}

TEST_CASE("a failed GPU kills every job sharing it, and only those", "[sharing][e2e][failures]") {
  const auto dir = scratch_dir("sharing-failure");
  const auto trace = write(dir / "t.swf", quarter_jobs_trace(false));
  auto r = run(dir, trace, "--policy per-gpu --gpu-sharing shard", "clean");
  REQUIRE(r.status == 0);
  // The GPU of job 2 and the jobs on it at t = 1000 (all 64 start at 0: 16 GPUs of 4 quarters).
  const auto by_gpu = one_gpu_jobs(read_csv((dir / "clean/jobs.csv").string()));
  std::string gpu;
  std::set<std::string> sharing;
  for (const auto& [g, spans] : by_gpu)
    if (std::ranges::any_of(spans, [](const Span& s) { return s.job == "2"; })) {
      gpu = g;
      for (const Span& s : spans)
        if (s.start <= 1000 && 1000 < s.finish) sharing.insert(s.job);
    }
  REQUIRE(sharing.size() == 4);

  const auto failures = write(dir / "f.csv", "time,component,id,duration\n1000,gpu," + gpu + ",600\n");
  r = run(dir, trace, "--policy per-gpu --gpu-sharing shard --failures " + failures, "failed");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto attempts = read_csv((dir / "failed/attempts.csv").string());
  std::set<std::string> killed;
  for (std::size_t i = 0; i < attempts.rows.size(); ++i) {
    if (attempts.at(i, "final_state") != "COMPLETED_KILLED") continue;
    killed.insert(attempts.at(i, "job_id"));
    CHECK(attempts.at(i, "allocated_resources") == gpu);
    CHECK(attempts.num(i, "finish_time") == 1000);
    CHECK(attempts.at(i, "reason") == "gpu " + gpu + " failed");
  }
  CHECK(killed == sharing);
  CHECK(summary_of(dir / "failed", "nb_jobs_success") == 64);
}

TEST_CASE("the sharing flags are checked, and a sweep may vary them", "[sharing][e2e][errors]") {
  const auto dir = scratch_dir("sharing-flags");
  auto r = run_nvlsim("--gpu-sharing halves", dir);
  CHECK(r.status == 2);
  CHECK(r.err == "nvlsim: --gpu-sharing: expected none, shard or mps, got \"halves\"\n");
  r = run_nvlsim("--gpu-sharing shard --shards-per-gpu 256", dir);
  CHECK(r.status == 2);
  CHECK(r.err == "nvlsim: --shards-per-gpu: must be between 1 and 255, got 256\n");
  r = run_nvlsim("--gpu-sharing mps --sharing-interference nan", dir);
  CHECK(r.status == 2);
  CHECK(r.err.starts_with("nvlsim: --sharing-interference: "));
  r = run_nvlsim("--sharing-interference 0.2", dir);
  CHECK(r.status == 2);
  CHECK(r.err ==
        "nvlsim: --sharing-interference: only with --gpu-sharing shard or mps (no job shares a GPU "
        "otherwise)\n");
  for (const std::string other : {"", "--gpu-sharing mps ", "--gpu-sharing none "}) {
    r = run_nvlsim(other + "--shards-per-gpu 8", dir);
    CHECK(r.status == 2);
    CHECK(r.err ==
          "nvlsim: --shards-per-gpu: only with --gpu-sharing shard (MPS counts 100 shares per GPU)\n");
  }
  const GridKeys keys = sweep_grid_keys();
  for (const std::string key : {"gpu-sharing", "shards-per-gpu", "sharing-interference"})
    CHECK(std::ranges::find(keys.keys, key, &GridKey::name) != keys.keys.end());
  CHECK_NOTHROW(keys.check("gpu-sharing", "mps"));
  CHECK_NOTHROW(keys.check("shards-per-gpu", "16"));
  CHECK_THROWS(keys.check("shards-per-gpu", "0"));
  CHECK_NOTHROW(keys.check("sharing-interference", "0.3"));
  CHECK_THROWS(keys.check("sharing-interference", "-1"));
  CHECK_THROWS(keys.check("gpu-sharing", "halves"));
}
