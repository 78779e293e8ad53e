#pragma once
// Everything nvlsim needs to know about a platform beyond SimGrid's hosts and links. A platform
// file carries it as properties of its root zone, so one file describes the whole machine.

#include <string>

#include "models/cluster_shape.hpp"
#include "models/fabric_params.hpp"
#include "models/system_catalog.hpp"

namespace nvlsim {

struct PlatformSpec {
  // Format 1 files describe the InfiniBand plane in SimGrid XML; from format 2 nvlsim builds it from the
  // properties (platforms/ib_plane.hpp), which loads in time linear in racks.
  int format_version = 2;
  // The system of models/system_catalog.hpp the file was written for: its rack price and power are the
  // owner cost model's defaults. Files without one are GB200 NVL72, as every file was before systems.
  std::string system{default_system().name};
  ClusterShape shape;
  FabricParams fabric;
  // A down tray leaves its domain's block instead of closing it (SystemFacts::partial_operation). The
  // file's nvlsim.partial_operation; off when absent, so files written before it behave as they did.
  bool partial_operation = false;
  std::string node_names;  // Slurm hostlist naming the trays in order; empty when the file has none
};

// `racks` racks of `system`, with its figures; racks must be a multiple of its racks per domain
// (std::invalid_argument otherwise).
PlatformSpec system_platform(const SystemFacts& system, int racks);

// GB200 NVL72 racks: 18 trays of 4 GPUs per NVLink domain (DOMAIN.md §1).
PlatformSpec nvl72_platform(int racks);

}  // namespace nvlsim
