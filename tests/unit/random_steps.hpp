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

}  // namespace nvlsim::test
