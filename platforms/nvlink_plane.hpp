#pragma once
// Builds the NVLink plane of a format 3 platform into SimGrid from its properties: the GPU hosts
// `gpu-<id>`, their port links `nvl_link_<id>` (as format 2's cluster names them) and one midplane link
// per zone `nvl-zone-<domain>-<zone>`, in one zone (platforms/nvlink_plane_zone.hpp). Cost is linear in GPUs.

#include <simgrid/s4u/NetZone.hpp>

#include "platforms/platform_spec.hpp"

namespace nvlsim {

// Adds zone "nvl" under `parent`, which must not be sealed yet.
void build_nvlink_plane(simgrid::s4u::NetZone& parent, const PlatformSpec& spec);

}  // namespace nvlsim
