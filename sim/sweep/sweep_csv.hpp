#pragma once
// The tidy tables of a sweep (columns in docs/output.md): sweep.csv, one row per run and policy, and
// sweep_summary.csv, one row per cell, policy and summary figure with its statistics over the seeds.

#include <ostream>

#include "sim/sweep/run_results.hpp"
#include "sim/sweep/sweep_plan.hpp"

namespace nvlsim {

void write_sweep_csv(std::ostream& out, const SweepPlan& plan, const SweepResults& results);
void write_sweep_summary_csv(std::ostream& out, const SweepPlan& plan, const SweepResults& results);

}  // namespace nvlsim
