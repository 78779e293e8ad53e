#include "tests/bench/seeded_machine.hpp"

#include <cstddef>
#include <random>

#include "sim/core/job_requests.hpp"
#include "sim/core/simulation_config.hpp"
#include "workloads/builtin_mix.hpp"
#include "workloads/job_class.hpp"

namespace nvlsim {
namespace {

constexpr double kLoad = 0.9;  // nvlsim-bench's; the mix's sizes do not depend on it
// Jobs in a row that do not fit before the machine counts as full: small jobs keep filling holes a while
// after the first large job stops fitting, as backfill fills them.
constexpr int kMaxMisses = 200;

}  // namespace

SeededMachine seeded_machine(const ClusterShape& shape, const PlacementPolicy& policy, int waiting_jobs,
                             std::uint64_t seed) {
  SimulationConfig config;  // nvlsim's defaults
  config.classes = builtin_class_table().classes;
  // Every job has a GPU, so the machine's GPU count in jobs always fills it.
  const int fill_jobs = shape.gpus() + kMaxMisses;
  const auto jobs = builtin_mix(MixOptions{fill_jobs + waiting_jobs, shape.gpus(), kLoad, seed});
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> elapsed(0.0, 1.0);

  SeededMachine machine{ClusterState(shape), {}, {}};
  std::size_t next = 0;
  for (int misses = 0; next < static_cast<std::size_t>(fill_jobs) && misses < kMaxMisses; ++next) {
    const JobRequest request = request_of(jobs[next], config, shape);
    auto placed =
        policy.may_fit(machine.state, request) ? policy.place(machine.state, request) : std::nullopt;
    if (!placed) {
      ++misses;
      continue;
    }
    misses = 0;
    machine.state.apply(*placed);
    const double limit = jobs[next].time_limit;
    machine.running.push_back({next, limit * (1 - elapsed(rng)), std::move(*placed)});
  }
  for (std::size_t end = next + static_cast<std::size_t>(waiting_jobs); next < end; ++next)
    machine.waiting.push_back({next, request_of(jobs[next], config, shape), jobs[next].time_limit});
  return machine;
}

}  // namespace nvlsim
