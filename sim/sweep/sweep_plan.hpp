#pragma once
// What a sweep runs: the grid expanded into cells, and each cell once per seed (a run), each run with the
// id that names its folder DIR/runs/ID. The plan is written into DIR as sweep-grid.json when the sweep
// starts, so that `nvlsim sweep collect DIR` and `nvlsim sweep run-one DIR I` need nothing else.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/sweep/sweep_grid.hpp"

namespace nvlsim {

using CellSettings = std::map<std::string, std::string>;  // setting -> value, as the grid gives them

struct SweepRun {
  std::size_t cell = 0;
  std::uint64_t seed = 0;
  std::string id;  // sim/sweep/run_id.hpp
};

struct SweepPlan {
  std::string grid;                   // the grid file, absolute
  std::vector<std::string> varying;   // settings whose value differs between cells, in the grid's order
  std::vector<std::string> policies;  // empty: `nvlsim run`'s default
  std::vector<std::uint64_t> seeds;
  std::vector<CellSettings> cells;  // the cross product (first axis slowest), then the explicit cells
  std::vector<SweepRun> runs;       // cell by cell, in seed order within a cell
};

// Throws InputError "FILE:LINE: FIELD: what is wrong" for a cell that sets a trace and the mix generator,
// or a platform and the platform generator, and for two cells with the same settings.
SweepPlan make_plan(const Grid& grid, const GridKeys& keys);

}  // namespace nvlsim
