#pragma once
// The command lines one sweep run executes, from its cell's settings: `nvlsim platform` when platform.*
// settings ask for a generated platform, `nvlsim workload mix` when mix.* settings ask for a generated
// trace, then `nvlsim run`, all writing into the run's folder.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "sim/sweep/sweep_plan.hpp"

namespace nvlsim {

struct RunSteps {
  std::vector<std::string> platform, mix;  // each from its command on ("platform", "workload", "mix", ...);
                                           // empty when nothing is generated
  std::vector<std::string> run;            // "run", ...
};

// Throws InputError "mix.gpus: ..." when a generated trace cannot tell the platform's GPUs (a platform file),
// and the command line's errors when the generated platform's settings are refused.
RunSteps run_steps(const CellSettings& cell, std::span<const std::string> policies, std::uint64_t seed,
                   const std::filesystem::path& folder);

// Every cell's command lines parsed, as the runs will parse them, so that a setting another one rules out
// (mix.* without mix.jobs or mix.days, fit with procs-per-gpu) stops the sweep before any run. Throws
// InputError "GRID: cell N: what is wrong".
void check_cells(const SweepPlan& plan);

}  // namespace nvlsim
