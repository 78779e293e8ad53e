#pragma once
// `nvlsim [options]`: trace -> jobs -> policies -> SimGrid -> metrics -> CSV.

#include <string>
#include <vector>

#include "sim/cli/run_options.hpp"

namespace nvlsim {

// Returns the process exit status. Throws InputError for bad input.
int run_command(const RunOptions& options, const std::vector<std::string>& command_line);

}  // namespace nvlsim
