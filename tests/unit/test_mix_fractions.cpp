// `nvlsim workload mix --fractional-share P`: that share of the inference jobs asks for part of one GPU,
// 10%-90% in steps of 10%, seeded like the rest of the mix; P = 0 is the mix without the option, byte for
// byte.

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "workloads/job_class.hpp"
#include "workloads/mix_generator.hpp"
#include "workloads/swf_reader.hpp"
#include "workloads/swf_writer.hpp"
#include "workloads/trace_jobs.hpp"

using namespace nvlsim;

namespace {

constexpr std::int64_t kInference = 3;  // executable number: class index + 1 in the default classes

MixParams params(int jobs, double share, std::uint64_t seed) {
  MixParams p;
  p.jobs = jobs;
  p.gpus = 576;
  p.seed = seed;
  p.fractional_share = share;
  return p;
}

std::string text_of(const GeneratedMix& mix) {
  std::ostringstream out;
  write_swf(out, mix.header, mix.records);
  return out.str();
}

// |observed - expected| within 4 standard errors of a share estimated from n draws.
void check_share(double observed, double expected, std::size_t n) {
  INFO("share " << observed << ", expected " << expected);
  CHECK(std::abs(observed - expected) < 4 * std::sqrt(expected * (1 - expected) / static_cast<double>(n)));
}

}  // namespace

TEST_CASE("a fractional share P: P of the inference jobs ask one GPU's 10%-90%, no other job does",
          "[mix][fraction]") {
  for (const double share : {0.25, 0.7, 1.0}) {
    INFO("share " << share);
    const GeneratedMix mix = generate_mix(params(40'000, share, 7));
    std::size_t inference = 0;
    std::size_t fractional = 0;
    std::map<std::int64_t, std::size_t> by_milli;
    for (const SwfRecord& r : mix.records) {
      if (r.executable_number == kInference) ++inference;
      if (r.gpu_milli == -1) continue;
      ++fractional;
      ++by_milli[r.gpu_milli];
      CHECK(r.executable_number == kInference);
      CHECK(r.allocated_processors == 1);
      CHECK(r.requested_processors == 1);
    }
    if (share == 1.0) {
      CHECK(fractional == inference);
    } else {
      check_share(static_cast<double>(fractional) / inference, share, inference);
    }
    REQUIRE(by_milli.size() == kFractionalGpuMilli.size());
    for (const std::int64_t milli : kFractionalGpuMilli)
      check_share(static_cast<double>(by_milli[milli]) / fractional, 1.0 / 9, fractional);
  }
}

TEST_CASE("fractional jobs are seeded: the same seed gives the same file, the header says how it was made",
          "[mix][fraction]") {
  const std::string a = text_of(generate_mix(params(2000, 0.5, 42)));
  CHECK(a == text_of(generate_mix(params(2000, 0.5, 42))));
  CHECK(a != text_of(generate_mix(params(2000, 0.5, 43))));
  CHECK(a != text_of(generate_mix(params(2000, 0.4, 42))));
  CHECK(a.find("; Generator: nvlsim workload mix --jobs 2000 --gpus 576 --load 0.9 --seed 42 --diurnal 0 "
               "--overestimate 2 --fractional-share 0.5\n") != std::string::npos);
  CHECK(a.find("; Class.inference: share=0.45 sizes=1:1,2:1,4:1 median_hours=0.5 sigma=1.2 "
               "fractional_share=0.5 gpu_milli=100,200,300,400,500,600,700,800,900\n") != std::string::npos);
  CHECK(a.find("; Classes: pretrain=1 finetune=2 inference=3\n; Field19: gpu_milli\n") != std::string::npos);
  // Read back as a user's next run would: the fractions reach the jobs.
  std::istringstream in(a);
  const SwfTrace trace = parse_swf(in, "mix.swf");
  const ClassTable classes = builtin_class_table();
  std::size_t fractional = 0;
  for (const Job& job : jobs_from_swf(trace, {.classes = &classes}))
    if (job.gpu_milli != 0) {
      ++fractional;
      CHECK(job.gpus == 1);
      CHECK(classes.classes[static_cast<std::size_t>(job.job_class)].name == "inference");
    }
  CHECK(fractional > 300);
}

TEST_CASE("a fractional share of 0 is the mix without it, byte for byte, in plain SWF", "[mix][fraction]") {
  const MixParams without = params(3000, 0, 5);
  const std::string plain = text_of(generate_mix(without));
  MixParams zero = without;
  zero.fractional_share = 0.0;
  CHECK(text_of(generate_mix(zero)) == plain);
  CHECK(plain.find("Field19") == std::string::npos);
  CHECK(plain.find("fractional") == std::string::npos);
}

TEST_CASE("a fractional job's work is its whole GPU: the load and --finetune-share count it so",
          "[mix][fraction]") {
  MixParams p = params(0, 0.6, 3);
  p.days = 10;
  const GeneratedMix mix = generate_mix(p);
  double work = 0;
  for (const SwfRecord& r : mix.records) work += r.run_time * static_cast<double>(r.allocated_processors);
  CHECK(work / (576.0 * 10 * 86400) >= 0.9);
  CHECK(work / (576.0 * 10 * 86400) < 0.9 + 576.0 * 2 * 86400 / (576.0 * 10 * 86400));

  // The inference class's expected work per job counts 1 GPU for its fractional share.
  MixClass inference = default_mix_classes()[2];
  const double whole = expected_job_work(inference, 4608);
  inference.fractional_share = 0.6;
  const double run = whole / (7.0 / 3);  // mean of sizes 1, 2, 4
  CHECK(expected_job_work(inference, 4608) == Approx(run * (0.6 + 0.4 * 7.0 / 3)));

  MixParams shares = params(300'000, 0.6, 9);
  shares.gpus = 4608;
  shares.finetune_work_share = 0.4;
  const GeneratedMix mixed = generate_mix(shares);
  double finetune = 0;
  double total = 0;
  for (const SwfRecord& r : mixed.records) {
    const double w = r.run_time * static_cast<double>(r.allocated_processors);
    total += w;
    if (r.executable_number == 2) finetune += w;
  }
  CHECK(finetune / total == Approx(0.4).margin(0.025));
}
