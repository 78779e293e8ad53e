#pragma once
// `nvlsim platform`: writes an NVL72 platform file and, on request, the Slurm topology.conf its fabric's
// leaf switches imply (the tree `tree` places under), so users can hand the same tree to their Slurm.

#include "sim/cli_options.hpp"

namespace nvlsim {

// Returns the exit status; throws InputError on an output that cannot be written or bad node names.
int platform_command(const PlatformOptions& options);

}  // namespace nvlsim
