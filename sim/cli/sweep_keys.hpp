#pragma once
// The settings a sweep grid may give (sim/sweep/grid_keys.hpp), derived from the command line's own
// definitions: every option of `nvlsim run`, of `nvlsim platform` as "platform.NAME" and of
// `nvlsim workload mix` as "mix.NAME", but those the sweep sets itself (seeds, policies, outputs).

#include "sim/sweep/grid_keys.hpp"

namespace nvlsim {

GridKeys sweep_grid_keys();

}  // namespace nvlsim
