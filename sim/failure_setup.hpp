#pragma once
// Turns a failure source (--failures) into the run's failure configuration.

#include <cstdint>
#include <optional>
#include <string>

#include "platforms/platform_loader.hpp"
#include "sim/core/simulation_config.hpp"

namespace nvlsim {

struct FailureRequest {
  std::optional<std::string> source;  // none: no failures
  double rate_scale = 1;              // multiplies every model failure rate
  std::uint64_t seed = 1;
};

// "llama3" and "llama3+midplane" are built-in models (builtin_failure_model); a name ending in .csv is a
// replay file; anything else a model JSON file.
// Throws InputError naming the file, line and field for bad input.
FailureConfig failure_config(const FailureRequest& request, const LoadedPlatform& platform);

}  // namespace nvlsim
