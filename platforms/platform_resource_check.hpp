#pragma once
// SimGrid reads a link's bandwidth and latency and a host's speed from the XML without checking their
// sign: a cluster with bw="-5Bps" loads, and the simulation then aborts in the middle ("The Impossible
// Did Happen") in every policy's process. nvlsim checks the loaded resources before any job runs.

#include <simgrid/s4u/Engine.hpp>
#include <string>

namespace nvlsim {

// Throws InputError "FILE: link NAME: bandwidth must be positive and finite, got B B/s" (and the same for a
// latency that is negative or not finite, or a host speed that is not positive and finite).
void check_platform_resources(const simgrid::s4u::Engine& engine, const std::string& file);

}  // namespace nvlsim
