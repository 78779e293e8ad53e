#pragma once
// The table nvlsim prints: per policy, the job counts, then the headline figures with their change
// against per-gpu (Slurm's default placement) when per-gpu is in the run.

#include <span>
#include <string>

#include "analysis/summary.hpp"

namespace nvlsim {

inline constexpr const char* kBaselinePolicy = "per-gpu";

// "+12.3%": the relative change of `value` against `base`; empty when either is undefined or base is 0.
std::string relative_change(double value, double base);

std::string comparison_table(std::span<const Summary> summaries);

}  // namespace nvlsim
