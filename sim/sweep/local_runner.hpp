#pragma once
// The runs of a sweep on this machine: each a child process `nvlsim sweep run-one DIR I`, at most --jobs
// at once. A run that fails is reported with the first lines of its error.txt and does not stop the others.

#include <filesystem>

#include "sim/sweep/sweep_plan.hpp"

namespace nvlsim {

struct LocalRunnerOptions {
  std::filesystem::path program;  // this nvlsim binary
  int jobs = 1;
  bool progress = false;  // a line on stderr with runs done, failed and the ETA
  bool resume = true;     // skip runs already finished
};

struct LocalRunnerResult {
  std::size_t skipped = 0;  // already finished
  std::size_t succeeded = 0;
  std::size_t failed = 0;
};

// Throws std::runtime_error when a child process cannot be started.
LocalRunnerResult run_locally(const std::filesystem::path& dir, const SweepPlan& plan,
                              const LocalRunnerOptions& options);

}  // namespace nvlsim
