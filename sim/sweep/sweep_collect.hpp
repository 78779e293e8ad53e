#pragma once
// Collecting a sweep: DIR/sweep.csv and DIR/sweep_summary.csv rebuilt from every run finished so far.

#include <filesystem>
#include <vector>

#include "sim/sweep/sweep_plan.hpp"

namespace nvlsim {

struct Collected {
  std::size_t finished = 0;
  std::vector<std::size_t> unfinished;  // indexes into the plan's runs
};

// Each file is written in full or not at all. Throws InputError for a finished run's unreadable summary.
Collected collect_sweep(const std::filesystem::path& dir, const SweepPlan& plan);

}  // namespace nvlsim
