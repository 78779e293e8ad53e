#pragma once
// The trace nvlsim replays when none is given: the generator's AI job mix, as if read from a file.

#include <cstdint>
#include <vector>

#include "workloads/job.hpp"
#include "workloads/mix_generator.hpp"
#include "workloads/swf_reader.hpp"

namespace nvlsim {

// The default mix for a platform: on 64 NVLink domains of 72 GPUs (nvl72x64) the parameters of the shipped
// workloads/mix.swf (one week, about 15,000 jobs), so the default run replays that file; elsewhere 400 jobs
// (a fast default run). Load 0.9 of the platform's GPUs; `seed` is --seed.
MixParams default_mix_params(int domains, int gpus, std::uint64_t seed);

// The generated mix as a trace named "built-in mix", header included (so its "Classes:" line applies).
SwfTrace builtin_mix_trace(const MixParams& params);

struct MixOptions {
  int jobs = 400;
  int platform_gpus = 576;  // the machine the load is for
  double load = 0.9;        // offered GPU-hours / capacity
  std::uint64_t seed = 1;
};

// `jobs` jobs of the default mix classes as the simulator replays them, classes indexed in the built-in
// class table (for benchmarks and tests that need jobs without a file).
std::vector<Job> builtin_mix(const MixOptions& options);

}  // namespace nvlsim
