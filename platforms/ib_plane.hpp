#pragma once
// Builds a platform's InfiniBand plane into SimGrid from its properties: the NIC hosts `nic-<gpu>`, their
// links `ib-leaf-<l>_link_<gpu>`, the leaves' uplinks `ib-leaf-<l>-up` and the pods' core links
// `ib-pod-<p>-up`, all in one zone (platforms/ib_plane_zone.hpp). Cost is linear in NICs.

#include <simgrid/s4u/NetZone.hpp>

#include "platforms/platform_spec.hpp"

namespace nvlsim {

class IbPlaneZone;

// Adds zone "ib" under `parent`, which must not be sealed yet, and returns it (owned by `parent`).
const IbPlaneZone& build_ib_plane(simgrid::s4u::NetZone& parent, const PlatformSpec& spec);

}  // namespace nvlsim
