#pragma once
// Turns --failures into the run's failure configuration.

#include "platforms/platform_loader.hpp"
#include "sim/cli_options.hpp"
#include "sim/simulation_config.hpp"

namespace nvlsim {

// "llama3" is the built-in model; a name ending in .csv is a replay file; anything else a model JSON file.
// Throws InputError naming the file, line and field for bad input.
FailureConfig failure_config(const RunOptions& options, const LoadedPlatform& platform);

}  // namespace nvlsim
