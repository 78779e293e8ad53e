#pragma once
// Writes a platform as a SimGrid platform XML file (version 4.1).

#include <string>

#include "platforms/platform_spec.hpp"

namespace nvlsim {

// Hosts gpu-<id> (NVLink plane) and nic-<id> (InfiniBand plane, the NIC of GPU <id>).
// Each NVLink domain is a SimGrid cluster whose private split-duplex links are the GPUs' NVLink
// ports (the NVSwitch fabric itself is non-blocking, so it has no backbone); the InfiniBand fabric
// is one cluster of NIC links with a backbone of NICs x NIC bandwidth / oversubscription.
std::string platform_xml(const PlatformSpec& spec);

}  // namespace nvlsim
