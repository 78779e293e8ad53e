// `nvlsim workload mix`: the generated mix matches its parameters within sampling error (fixed seeds),
// is the same for the same seed, and the shipped workloads/mix.swf is what the generator writes.

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "nvlsim_process.hpp"
#include "workloads/builtin_mix.hpp"
#include "workloads/mix_generator.hpp"
#include "workloads/swf_reader.hpp"
#include "workloads/swf_writer.hpp"

using namespace nvlsim;

namespace {

MixParams params(int jobs, double days, int gpus, std::uint64_t seed) {
  MixParams p;
  p.jobs = jobs;
  p.days = days;
  p.gpus = gpus;
  p.seed = seed;
  return p;
}

std::string text_of(const GeneratedMix& mix) {
  std::ostringstream out;
  write_swf(out, mix.header, mix.records);
  return out.str();
}

double work_of(const GeneratedMix& mix) {
  double work = 0;
  for (const SwfRecord& r : mix.records) work += r.run_time * static_cast<double>(r.allocated_processors);
  return work;
}

// |observed - expected| within 4 standard errors of a share estimated from n draws.
void check_share(double observed, double expected, std::size_t n) {
  INFO("share " << observed << ", expected " << expected);
  CHECK(std::abs(observed - expected) < 4 * std::sqrt(expected * (1 - expected) / static_cast<double>(n)));
}

}  // namespace

TEST_CASE("the mix's size shares match its classes within sampling error", "[mix]") {
  const GeneratedMix mix = generate_mix(params(4000, 0, 576, 11));
  const std::size_t n = mix.records.size();
  REQUIRE(n == 4000);
  std::map<std::int64_t, std::size_t> by_size;
  std::size_t small = 0, medium = 0, large = 0;
  for (const SwfRecord& r : mix.records) {
    ++by_size[r.allocated_processors];
    const auto g = r.allocated_processors;
    (g <= 4 ? small : g <= 32 ? medium : large)++;
    // Classes sit in the executable number: 1 pretrain (64+), 2 finetune (8-32), 3 inference (1-4).
    CHECK(r.executable_number == (g >= 64 ? 1 : g >= 8 ? 2 : 3));
    CHECK(r.requested_time == std::ceil(r.run_time * 2 / 60) * 60);
    CHECK(r.run_time >= 60);
  }
  check_share(static_cast<double>(medium) / n, 0.45, n);  // DOMAIN.md §6: over 40% at 8-32 GPUs
  check_share(static_cast<double>(small) / n, 0.45, n);
  check_share(static_cast<double>(large) / n, 0.10, n);
  for (int g : {8, 16, 32}) check_share(static_cast<double>(by_size[g]) / n, 0.15, n);
  check_share(static_cast<double>(by_size[64]) / n, 0.10 * 0.5 / 0.97, n);  // 1152 is left out on 576 GPUs
  CHECK(by_size.count(1152) == 0);
  CHECK(mix.records.back().allocated_processors <= 576);
}

TEST_CASE("the mix's load and arrival rate match the parameters within sampling error", "[mix]") {
  SECTION("--days: the work offered over the window is the load, give or take the last job") {
    const GeneratedMix mix = generate_mix(params(0, 30, 576, 3));
    const double capacity = 576.0 * 30 * 86400;
    const double load = work_of(mix) / capacity;
    CHECK(load >= 0.9);
    CHECK(load < 0.9 + 576.0 * 2 * 86400 / capacity);  // the last job: at most 576 GPUs for 2 days
    CHECK(mix.records.back().submit_time < 30 * 86400);
  }
  SECTION("--jobs: arrivals are a Poisson process of rate N / window") {
    const GeneratedMix mix = generate_mix(params(4000, 0, 576, 5));
    const double window = work_of(mix) / (0.9 * 576);
    const auto n = static_cast<double>(mix.records.size());
    const double mean_gap = window / n;
    // Exponential gaps: mean = 1 / rate, and a share e^-1 of them longer than the mean.
    double sum = 0;
    std::size_t longer = 0;
    for (std::size_t i = 1; i < mix.records.size(); ++i) {
      const double gap = mix.records[i].submit_time - mix.records[i - 1].submit_time;
      sum += gap;
      if (gap > mean_gap) ++longer;
    }
    CHECK(std::abs(sum / (n - 1) / mean_gap - 1) < 4 / std::sqrt(n));
    check_share(static_cast<double>(longer) / (n - 1), std::exp(-1.0), mix.records.size() - 1);
    CHECK(mix.header.back().first == "Classes");
  }
  SECTION("--diurnal A: the 12 hours around noon get 1/2 + A/pi of the arrivals") {
    MixParams p = params(0, 20, 576, 9);
    p.diurnal = 0.8;
    const GeneratedMix mix = generate_mix(p);
    std::size_t day = 0;
    for (const SwfRecord& r : mix.records) {
      const double hour = std::fmod(r.submit_time, 86400) / 3600;
      if (hour >= 6 && hour < 18) ++day;
    }
    check_share(static_cast<double>(day) / mix.records.size(), 0.5 + 0.8 / M_PI, mix.records.size());
  }
}

TEST_CASE("the same seed gives the same mix, byte for byte", "[mix]") {
  const std::string a = text_of(generate_mix(params(500, 0, 576, 42)));
  CHECK(a == text_of(generate_mix(params(500, 0, 576, 42))));
  CHECK(a != text_of(generate_mix(params(500, 0, 576, 43))));
  // The header records every parameter.
  CHECK(a.find("; Generator: nvlsim workload mix --jobs 500 --gpus 576 --load 0.9 --seed 42 --diurnal 0 "
               "--overestimate 2\n") != std::string::npos);
  CHECK(a.find("; Class.finetune: share=0.45 sizes=8:1,16:1,32:1 median_hours=1 sigma=1\n") !=
        std::string::npos);
}

TEST_CASE("workloads/mix.swf is the default mix of nvl72x64: one week, about 15,000 jobs", "[mix]") {
  const auto shipped = nvlsim::test::slurp(std::string(NVLSIM_SOURCE_DIR) + "/workloads/mix.swf");
  const MixParams p = default_mix_params(64, 64 * 72, 1);
  CHECK(text_of(generate_mix(p)) == shipped);
  const SwfTrace trace = read_swf(std::string(NVLSIM_SOURCE_DIR) + "/workloads/mix.swf");
  CHECK(trace.records.size() > 14000);
  CHECK(trace.records.size() < 16000);
  CHECK(trace.records.back().submit_time < 7 * 86400);
  // Elsewhere the default is 400 jobs for the platform's GPUs.
  CHECK(builtin_mix_trace(default_mix_params(8, 576, 1)).records.size() == 400);
  CHECK(builtin_mix(MixOptions{}).size() == 400);
}

TEST_CASE("nvlsim workload mix writes the shipped file and checks its flags", "[mix][e2e]") {
  const auto dir = nvlsim::test::scratch_dir("mix-cli");
  auto r = nvlsim::test::run_nvlsim(
      "workload mix --days 7 --gpus 4608 --load 0.9 --seed 1 -o " + (dir / "mix.swf").string(), dir);
  REQUIRE(r.status == 0);
  CHECK(nvlsim::test::slurp((dir / "mix.swf").string()) ==
        nvlsim::test::slurp(std::string(NVLSIM_SOURCE_DIR) + "/workloads/mix.swf"));
  r = nvlsim::test::run_nvlsim("workload mix --jobs 10 --days 2 --gpus 8 -o x.swf", dir);
  CHECK(r.status == 2);
  CHECK(r.err == "nvlsim: workload mix: give one of --jobs N or --days D\n");
  r = nvlsim::test::run_nvlsim("workload mix --jobs 10 --gpus 8 --load 0 -o x.swf", dir);
  CHECK(r.status == 2);
  CHECK(r.err == "nvlsim: --load: must be between 0.001 and 100, got 0\n");
}

namespace {

// Realized GPU-seconds per class (executable number - 1) and in total.
std::pair<std::map<std::int64_t, double>, double> work_by_class(const GeneratedMix& mix) {
  std::map<std::int64_t, double> by_class;
  for (const SwfRecord& r : mix.records)
    by_class[r.executable_number - 1] += r.run_time * static_cast<double>(r.allocated_processors);
  return {by_class, work_of(mix)};
}

}  // namespace

TEST_CASE("a class's expected work per job is what the generator draws on average", "[mix]") {
  const GeneratedMix mix = generate_mix(params(1'000'000, 0, 4608, 11));
  std::map<std::int64_t, int> jobs;
  for (const SwfRecord& r : mix.records) ++jobs[r.executable_number - 1];
  const auto [work, total] = work_by_class(mix);
  const auto classes = default_mix_classes();
  for (std::size_t k = 0; k < classes.size(); ++k) {
    INFO(classes[k].name);
    // Pre-training's work per job has a coefficient of variation near 3: 100,000 draws put its mean within
    // 1%.
    CHECK(work.at(k) / jobs.at(k) == Approx(expected_job_work(classes[k], 4608)).epsilon(0.04));
  }
}

TEST_CASE("the default mix gives finetune jobs about 30% of the work, as --help says", "[mix]") {
  double finetune = 0;
  double total = 0;
  for (const MixClass& c : default_mix_classes()) {
    const double work = c.share * expected_job_work(c, 4608);
    total += work;
    if (c.name == "finetune") finetune = work;
  }
  CHECK(finetune / total == Approx(0.30).margin(0.02));
}

TEST_CASE("the mix generator's --finetune-share sets the finetune jobs' share of the offered GPU-hours",
          "[mix]") {
  for (const double share : {0.2, 0.4, 0.6}) {
    MixParams p = params(500'000, 0, 4608, 5);
    p.finetune_work_share = share;
    const GeneratedMix mix = generate_mix(p);
    const auto [work, total] = work_by_class(mix);
    INFO("share " << share);
    CHECK(work.at(1) / total == Approx(share).margin(0.025));
    // The other two keep their relative work: pre-training over inference as in the default mix.
    const auto classes = default_mix_classes();
    const double ratio = classes[0].share * expected_job_work(classes[0], 4608) /
                         (classes[2].share * expected_job_work(classes[2], 4608));
    CHECK(work.at(0) / work.at(2) == Approx(ratio).epsilon(0.1));
  }
  MixParams none = params(1000, 0, 4608, 5);
  none.finetune_work_share = 0.0;
  const GeneratedMix mix = generate_mix(none);
  for (const SwfRecord& r : mix.records) CHECK(r.executable_number != 2);
  CHECK(text_of(mix).find("--finetune-share 0") != std::string::npos);
}
