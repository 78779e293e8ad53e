#pragma once
// Loads a platform file with SimGrid's own loader, seals it (routes are ready), and reads nvlsim's
// properties from it.

#include <filesystem>
#include <string_view>
#include <vector>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include "platforms/platform_spec.hpp"

namespace nvlsim {

class IbPlaneZone;

struct LoadedPlatform {
  PlatformSpec spec;
  std::vector<simgrid::s4u::Host*> gpu_hosts;  // index = GPU id
  std::vector<simgrid::s4u::Host*> nic_hosts;  // index = GPU id
  // Format 2 and later: the zone nvlsim built for the InfiniBand plane, which holds every NIC.
  const IbPlaneZone* ib_plane = nullptr;
};

// Throws InputError "FILE: ..." when the file is no regular file or too large (platform_file_check.hpp),
// SimGrid rejects it, a property is missing or malformed, or a host the properties imply is absent. A
// file SimGrid aborts on ends the process with status 2 and "FILE: SimGrid cannot load it: MESSAGE".
LoadedPlatform load_platform(simgrid::s4u::Engine& engine, const std::filesystem::path& path);

// The same for a platform given as XML text (a built-in one). SimGrid reads files only, so the text goes
// through an anonymous in-memory file: nothing is left on disk however the process ends.
LoadedPlatform load_platform_text(simgrid::s4u::Engine& engine, std::string_view xml);

}  // namespace nvlsim
