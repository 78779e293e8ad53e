#pragma once
// The small AI job mix nvlsim replays when no trace is given.

#include <cstdint>
#include <vector>

#include "workloads/job.hpp"

namespace nvlsim {

struct MixOptions {
  int jobs = 400;
  int platform_gpus = 576;  // sizes arrivals for this machine
  double load = 0.9;        // offered GPU-hours / capacity
  std::uint64_t seed = 1;
};

// Sizes 1-576 GPUs: 45% of jobs at 8, 16 or 32 GPUs (the GTC 2026 figure of over 40% of AI load,
// DOMAIN.md §6), 30% at 1-4 GPUs (inference, debugging), 25% at 64-576 GPUs (pre-training).
// Log-normal run times per size class, Poisson arrivals at the rate that gives `load`, time
// limits twice the run time rounded up to a minute.
std::vector<Job> builtin_mix(const MixOptions& options);

}  // namespace nvlsim
