#pragma once
// A machine driven by random jobs, ends and GPU failures, for tests that check the state's indexes or a
// placement against a slower reference after every step.

#include <cstddef>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "schedulers/allocation.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/job_request.hpp"
#include "schedulers/per_gpu_policy.hpp"

namespace nvlsim::test {

// `steps` random steps on the state: with `new_job_ops` chances in 10 the job new_job(op, rng) gives
// (none: nothing), else the release of a random running job, and one chance in 10 a GPU going down or up
// again; after each step check(applied), with the allocations running.
template <class NewJob, class Check>
void random_steps(ClusterState& state, std::mt19937& rng, int steps, int new_job_ops, NewJob new_job,
                  Check check) {
  std::vector<Allocation> applied;
  for (int step = 0; step < steps; ++step) {
    const int op = std::uniform_int_distribution<int>(0, 9)(rng);
    if (op < new_job_ops) {
      std::optional<Allocation> a = new_job(op, rng);
      if (!a) continue;
      state.apply(*a);
      applied.push_back(std::move(*a));
    } else if (op < 9 && !applied.empty()) {
      const std::size_t i = std::uniform_int_distribution<std::size_t>(0, applied.size() - 1)(rng);
      state.release(applied[i]);
      applied.erase(applied.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      const int gpu = std::uniform_int_distribution<int>(0, state.shape().gpus() - 1)(rng);
      state.set_down(gpu, !state.gpu_down(gpu));
    }
    check(applied);
  }
}

// 3,000 random steps on a machine of `shape`: jobs as per-gpu places them (1..6 GPUs anywhere or 1..8
// whole trays), releases, GPUs going down or up; now and then a job also holds a core on some other tray
// (as Slurm may report a job's cores: an idle tray with cores in use is no longer offered whole) or every
// free core of its first tray (a tray with free GPUs and no core is never offered). check(state) after each.
// The state keeps counts for `groups` when given (ClusterState::index_groups).
template <class Check>
void random_machine(const ClusterShape& shape, unsigned seed, Check check, TrayGroups groups = nullptr) {
  ClusterState state(shape);
  state.index_groups(std::move(groups));
  const PerGpuPolicy policy{nvlsim::kDefaultSlurmVersion};
  std::mt19937 rng(seed);
  const auto new_job = [&](int op, std::mt19937& r) -> std::optional<Allocation> {
    const JobRequest request =
        op < 2 ? JobRequest{shape.gpus_per_tray * std::uniform_int_distribution<int>(1, 8)(r),
                            RequestShape::nodes}
               : JobRequest{std::uniform_int_distribution<int>(1, 6)(r)};
    std::optional<Allocation> placed = policy.place(state, request);
    if (!placed) return std::nullopt;
    const int first = shape.tray_of_gpu(placed->gpus.front());
    const int other = std::uniform_int_distribution<int>(0, shape.trays() - 1)(r);
    if (op == 4 && state.free_cpus_in_tray(other) >= 2) placed->cpus.push_back({other, 1});
    if (op == 3 && placed->cpus.size() == 1) placed->cpus = {{first, state.free_cpus_in_tray(first)}};
    return placed;
  };
  random_steps(state, rng, 3000, 5, new_job, [&](const std::vector<Allocation>&) { check(state); });
}

}  // namespace nvlsim::test
