#include "workloads/mix_generator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string_view>

#include "workloads/seeded_random.hpp"

namespace nvlsim {

namespace {

constexpr double kDay = 86400;
constexpr double kMinRunSeconds = 60;

std::vector<MixSize> usable_sizes(const MixClass& c, int gpus) {
  std::vector<MixSize> sizes;
  for (const MixSize& s : c.sizes)
    if (s.gpus <= gpus) sizes.push_back(s);
  if (sizes.empty()) sizes.push_back({gpus, 1});
  return sizes;
}

std::string describe(const MixClass& c, const std::vector<MixSize>& sizes) {
  std::string text = fmt::format("share={} sizes=", c.share);
  for (std::size_t i = 0; i < sizes.size(); ++i)
    text += fmt::format("{}{}:{}", i ? "," : "", sizes[i].gpus, sizes[i].weight);
  text += fmt::format(" median_hours={} sigma={}", c.median_hours, c.sigma);
  if (c.fractional_share > 0)
    text += fmt::format(" fractional_share={} gpu_milli={}", c.fractional_share,
                        fmt::join(kFractionalGpuMilli, ","));
  return text;
}

// E[max(floor, X)] for X log-normal with median e^mu and sigma of ln X.
double expected_floored_lognormal(double mu, double sigma, double floor) {
  const auto phi = [](double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); };
  const double z = (std::log(floor) - mu) / sigma;
  return floor * phi(z) + std::exp(mu + sigma * sigma / 2) * phi(sigma - z);
}

// The classes with their job shares changed so that the named class's expected share of the work is
// `share` and the others keep their relative expected work.
std::vector<MixClass> with_work_share(std::vector<MixClass> classes, std::string_view name, double share,
                                      int gpus) {
  const auto target = std::ranges::find(classes, name, &MixClass::name);
  if (target == classes.end())
    throw std::invalid_argument(fmt::format("workload mix: no class named {} to give a work share", name));
  double others = 0;
  for (const MixClass& c : classes)
    if (&c != &*target) others += c.share * expected_job_work(c, gpus);
  for (MixClass& c : classes) {
    const double job_work = expected_job_work(c, gpus);
    const double work = &c == &*target ? share : others > 0 ? (1 - share) * c.share * job_work / others : 0;
    c.share = work / job_work;
  }
  double total = 0;
  for (const MixClass& c : classes) total += c.share;
  for (MixClass& c : classes) c.share /= total;
  return classes;
}

// The classes with the named one's fractional share set.
std::vector<MixClass> with_fractional_share(std::vector<MixClass> classes, std::string_view name,
                                            double share) {
  const auto target = std::ranges::find(classes, name, &MixClass::name);
  if (target == classes.end())
    throw std::invalid_argument(fmt::format("workload mix: no class named {} to give fractional jobs", name));
  target->fractional_share = share;
  return classes;
}

struct Drawn {
  int gpus;
  double run;
  std::size_t job_class;
  std::int64_t gpu_milli;  // -1: whole GPUs
};

}  // namespace

std::vector<MixClass> default_mix_classes() {
  return {{"pretrain", 0.10, {{64, 0.5}, {128, 0.3}, {256, 0.1}, {576, 0.07}, {1152, 0.03}}, 0.9, 1.2},
          {"finetune", 0.45, {{8, 1}, {16, 1}, {32, 1}}, 1.0, 1.0},
          {"inference", 0.45, {{1, 1}, {2, 1}, {4, 1}}, 0.5, 1.2}};
}

double expected_job_work(const MixClass& c, int gpus) {
  const std::vector<MixSize> sizes = usable_sizes(c, gpus);
  double weight = 0;
  double weighted_gpus = 0;
  for (const MixSize& s : sizes) {
    weight += s.weight;
    weighted_gpus += s.weight * s.gpus;
  }
  const double mean_gpus = c.fractional_share + (1 - c.fractional_share) * weighted_gpus / weight;
  return mean_gpus * expected_floored_lognormal(std::log(c.median_hours * 3600), c.sigma, kMinRunSeconds);
}

MixParams shipped_mix_params() {
  MixParams p;
  p.days = 7;
  p.gpus = 64 * 72;
  p.load = 0.9;
  p.seed = 1;
  return p;
}

GeneratedMix generate_mix(const MixParams& given) {
  MixParams params = given;
  // Before the work share, whose expected work per job counts the fractional jobs' single GPUs.
  if (given.fractional_share > 0)
    params.classes = with_fractional_share(params.classes, "inference", given.fractional_share);
  if (given.finetune_work_share)
    params.classes = with_work_share(params.classes, "finetune", *given.finetune_work_share, given.gpus);
  SeededRandom rng(params.seed);
  std::vector<double> shares;
  std::vector<std::vector<MixSize>> sizes;
  std::vector<std::vector<double>> weights;
  for (const MixClass& c : params.classes) {
    shares.push_back(c.share);
    sizes.push_back(usable_sizes(c, params.gpus));
    weights.emplace_back();
    for (const MixSize& s : sizes.back()) weights.back().push_back(s.weight);
  }
  const std::vector<double> fraction_weights(kFractionalGpuMilli.size(), 1.0);
  const auto draw = [&]() {
    const std::size_t k = rng.pick(shares);
    const MixClass& c = params.classes[k];
    // Drawn only for a class with fractional jobs, so that a mix without them is the mix as it was.
    const bool fractional = c.fractional_share > 0 && rng.uniform() < c.fractional_share;
    const int gpus = fractional ? 1 : sizes[k][rng.pick(weights[k])].gpus;
    const std::int64_t milli = fractional ? kFractionalGpuMilli[rng.pick(fraction_weights)] : -1;
    const double run =
        std::max(kMinRunSeconds, std::round(rng.lognormal(std::log(c.median_hours * 3600), c.sigma)));
    return Drawn{gpus, run, k, milli};
  };

  std::vector<Drawn> jobs;
  double work = 0;
  double window = 0;
  if (params.jobs > 0) {
    for (int i = 0; i < params.jobs; ++i) jobs.push_back(draw());
    for (const Drawn& j : jobs) work += j.gpus * j.run;
    window = work / (params.load * params.gpus);
  } else {
    window = params.days * kDay;
    while (work < params.load * params.gpus * window) {
      jobs.push_back(draw());
      work += jobs.back().gpus * jobs.back().run;
    }
  }

  // Given its count, a Poisson process's arrivals are independent draws from its normalized rate; thinning
  // draws them from the diurnal rate.
  std::vector<double> arrivals;
  arrivals.reserve(jobs.size());
  while (arrivals.size() < jobs.size()) {
    const double t = rng.uniform() * window;
    const double rate = 1 - params.diurnal * std::cos(2 * std::numbers::pi * t / kDay);
    if (rng.uniform() * (1 + params.diurnal) < rate) arrivals.push_back(std::floor(t));
  }
  std::ranges::sort(arrivals);

  GeneratedMix mix;
  mix.records.reserve(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    SwfRecord r;
    r.job_number = static_cast<std::int64_t>(i + 1);
    r.submit_time = arrivals[i];
    r.run_time = jobs[i].run;
    r.allocated_processors = r.requested_processors = jobs[i].gpus;
    r.requested_time = std::ceil(jobs[i].run * params.overestimate / 60) * 60;
    r.status = 1;
    r.executable_number = static_cast<std::int64_t>(jobs[i].job_class + 1);
    r.gpu_milli = jobs[i].gpu_milli;
    mix.records.push_back(r);
  }

  auto& h = mix.header;
  h.emplace_back("Version", "2.2");
  h.emplace_back("Computer",
                 fmt::format("synthetic AI job mix for {} GPUs (nvlsim workload mix)", params.gpus));
  h.emplace_back(
      "Generator",
      fmt::format(
          "nvlsim workload mix {} --gpus {} --load {} --seed {} --diurnal {} --overestimate {}{}{}",
          params.jobs > 0 ? fmt::format("--jobs {}", params.jobs) : fmt::format("--days {}", params.days),
          params.gpus, params.load, params.seed, params.diurnal, params.overestimate,
          params.finetune_work_share ? fmt::format(" --finetune-share {}", *params.finetune_work_share) : "",
          params.fractional_share > 0 ? fmt::format(" --fractional-share {}", params.fractional_share) : ""));
  h.emplace_back("Note",
                 "processors are GPUs; run times are those of a job placed in as few NVLink domains as "
                 "possible; executable number = class (see Classes)");
  h.emplace_back("UnixStartTime", "0");
  h.emplace_back("MaxJobs", fmt::format("{}", jobs.size()));
  h.emplace_back("MaxRecords", fmt::format("{}", jobs.size()));
  h.emplace_back("MaxProcs", fmt::format("{}", params.gpus));
  h.emplace_back("TargetLoad", fmt::format("{}", params.load));
  h.emplace_back("OfferedGPUHours", fmt::format("{:.0f}", work / 3600));
  h.emplace_back("ArrivalWindowSeconds", fmt::format("{:.0f}", window));
  std::string classes;
  for (std::size_t k = 0; k < params.classes.size(); ++k) {
    classes += fmt::format("{}{}={}", k ? " " : "", params.classes[k].name, k + 1);
    h.emplace_back(fmt::format("Class.{}", params.classes[k].name), describe(params.classes[k], sizes[k]));
  }
  h.emplace_back("Classes", classes);
  return mix;
}

}  // namespace nvlsim
