#pragma once
// `nvlsim platform`: writes the platform file of N racks of a system (models/system_catalog.hpp) and, on
// request, the Slurm topology.conf its fabric's leaf switches imply (the tree `tree` places under), so
// users can hand the same tree to their Slurm.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "models/system_catalog.hpp"

namespace nvlsim {

// The fabric flags given; each replaces the system's figure.
struct FabricFlags {
  std::optional<int> nvlink_links_per_gpu, ib_switch_radix, nccl_nics_per_domain;
  std::optional<double> nvlink_link_bw, nvlink_latency, nic_bw, ib_latency, ib_oversubscription;
  std::optional<double> nvlink_efficiency, nvls_efficiency, nic_efficiency;
  std::optional<double> inter_zone_bw;
  std::optional<bool> nvlink_sharp;
};

struct PlatformOptions {
  std::string system{default_system().name};
  int racks = 8;
  FabricFlags fabric;
  std::optional<int> partial_operation;  // 0 or 1; none = the system's
  std::string node_names;                // Slurm hostlist naming the trays in order; empty = none
  std::string output;
  std::string topology_output;  // topology.conf of the fabric's leaves, as `tree` sees them; empty = none
  std::string block_topology_output;  // topology.conf of the NVLink domains, as `block` sees them
};

// Declares `platform` and its options on `app`, filling `o`.
CLI::App* add_platform_command(CLI::App& app, PlatformOptions& o);

// Returns the exit status; throws InputError on an output that cannot be written or bad node names.
int platform_command(const PlatformOptions& options);

}  // namespace nvlsim
