#pragma once
// `nvlsim platform`: writes an NVL72 platform file and, on request, the Slurm topology.conf its fabric's
// leaf switches imply (the tree `tree` places under), so users can hand the same tree to their Slurm.

#include <CLI/CLI.hpp>

#include <string>

#include "models/fabric_params.hpp"

namespace nvlsim {

struct PlatformOptions {
  int racks = 8;
  FabricParams fabric;
  std::string node_names;  // Slurm hostlist naming the trays in order; empty = none
  std::string output;
  std::string topology_output;  // topology.conf of the fabric's leaves, as `tree` sees them; empty = none
};

// Declares `platform` and its options on `app`, filling `o`.
CLI::App* add_platform_command(CLI::App& app, PlatformOptions& o);

// Returns the exit status; throws InputError on an output that cannot be written or bad node names.
int platform_command(const PlatformOptions& options);

}  // namespace nvlsim
