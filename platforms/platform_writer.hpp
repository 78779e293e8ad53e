#pragma once
// Writes a platform as a SimGrid platform XML file (version 4.1).

#include <string>

#include "platforms/platform_spec.hpp"

namespace nvlsim {

// Hosts gpu-<id> (NVLink plane) and nic-<id> (InfiniBand plane, the NIC of GPU <id>).
// All GPUs form one SimGrid cluster whose private split-duplex links are their NVLink ports (the
// NVSwitch fabric is non-blocking, so it has no backbone). The InfiniBand fat tree is a Floyd zone per
// leaf switch (its NICs' links), per pod (leaf uplinks to the spine) and for the fabric (pod core
// links). Layout and load cost: docs/model.md, "Platform".
std::string platform_xml(const PlatformSpec& spec);

}  // namespace nvlsim
