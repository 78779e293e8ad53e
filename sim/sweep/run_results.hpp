#pragma once
// The summary.csv of every finished run of a sweep, read back for the tidy tables.

#include <filesystem>
#include <string>
#include <vector>

#include "sim/sweep/sweep_plan.hpp"

namespace nvlsim {

struct SummaryLine {
  std::vector<std::string> cells;  // as written, the policy first
  std::vector<double> numbers;     // every column after the policy; NaN for an empty cell
};

struct RunResult {
  std::size_t run = 0;             // index in the plan's runs
  std::vector<SummaryLine> lines;  // one per policy, in the run's order
};

struct SweepResults {
  std::vector<std::string> columns;  // summary.csv's header
  std::vector<RunResult> finished;   // in the plan's order
  std::vector<std::size_t> unfinished;
};

// Throws InputError "FILE:LINE: what is wrong" for a finished run's summary.csv that is missing or is not
// the summary.csv this nvlsim writes.
SweepResults read_results(const std::filesystem::path& dir, const SweepPlan& plan);

}  // namespace nvlsim
