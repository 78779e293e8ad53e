#pragma once
// DIR/sweep-grid.json: the expanded plan of a sweep, written when it starts so that the folder is
// self-contained (docs/sweep.md), and the layout of DIR.

#include <filesystem>

#include "sim/sweep/sweep_plan.hpp"

namespace nvlsim {

std::filesystem::path plan_path(const std::filesystem::path& dir);                     // DIR/sweep-grid.json
std::filesystem::path run_dir(const std::filesystem::path& dir, const SweepRun& run);  // DIR/runs/ID
std::filesystem::path done_path(const std::filesystem::path& run_dir);                 // RUNDIR/run-done.json
std::filesystem::path error_path(const std::filesystem::path& run_dir);                // RUNDIR/error.txt

// Written in full or not at all. Throws InputError when DIR cannot be written.
void write_plan(const std::filesystem::path& dir, const SweepPlan& plan);
// Throws InputError "DIR/sweep-grid.json: what is wrong" when it is missing or not a plan.
SweepPlan read_plan(const std::filesystem::path& dir);

// A run is finished when run-done.json is in its folder: written last, through a rename.
bool run_finished(const std::filesystem::path& dir, const SweepRun& run);

}  // namespace nvlsim
