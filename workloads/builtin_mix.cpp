#include "workloads/builtin_mix.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "workloads/seeded_random.hpp"

namespace nvlsim {

namespace {

struct SizeClass {
  double share;
  std::array<int, 6> sizes;  // drawn uniformly; 0 = unused slot
  double median_hours;       // of the log-normal run time
};

constexpr std::array<SizeClass, 3> kClasses = {{
    {0.30, {1, 2, 4, 0, 0, 0}, 0.5},
    {0.45, {8, 16, 32, 0, 0, 0}, 2.0},
    {0.25, {64, 128, 144, 256, 288, 576}, 6.0},
}};
constexpr double kSigma = 1.0;

}  // namespace

std::vector<Job> builtin_mix(const MixOptions& options) {
  SeededRandom rng(options.seed);
  std::vector<Job> jobs(options.jobs);
  double offered = 0;
  std::array<double, kClasses.size()> shares{};
  for (std::size_t c = 0; c < kClasses.size(); ++c) shares[c] = kClasses[c].share;
  for (int i = 0; i < options.jobs; ++i) {
    const SizeClass& cls = kClasses[rng.pick(shares)];
    const auto used = static_cast<std::size_t>(
        std::count_if(cls.sizes.begin(), cls.sizes.end(), [](int s) { return s > 0; }));
    const int gpus =
        std::min(cls.sizes[static_cast<std::size_t>(rng.uniform() * used)], options.platform_gpus);
    const double run = std::max(60.0, std::round(rng.lognormal(std::log(cls.median_hours * 3600.0), kSigma)));
    jobs[i] = Job{i + 1, 0, gpus, std::ceil(2 * run / 60) * 60, run, 0};
    offered += gpus * run;
  }
  // Arrival rate such that offered work / (capacity x span of arrivals) = load.
  const double span = offered / (options.platform_gpus * options.load);
  const double mean_gap = span / std::max(1, options.jobs);
  double t = 0;
  for (auto& j : jobs) {
    j.submit_time = std::round(t);
    t += rng.exponential(mean_gap);
  }
  return jobs;
}

}  // namespace nvlsim
