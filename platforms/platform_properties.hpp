#pragma once
// nvlsim's properties of a platform file (the root zone's nvlsim.* properties) read into a PlatformSpec,
// apart from SimGrid so that they can be checked, tested and fuzzed without an engine.

#include <functional>
#include <string>

#include "platforms/platform_spec.hpp"

namespace nvlsim {

// The value of property `key` ("nvlsim.domains"), or nullptr when the file does not set it.
using PropertyLookup = std::function<const char*(const std::string& key)>;

// Every number must be finite and inside the bounds docs/inputs.md lists (they keep GPU, tray and
// component counts inside int and time and memory bounded). Throws InputError
// "FILE: property nvlsim.KEY: what is wrong".
PlatformSpec read_platform_properties(const PropertyLookup& lookup, const std::string& file);

}  // namespace nvlsim
