#pragma once
// nvlsim's properties of a platform file (the root zone's nvlsim.* properties) read into a PlatformSpec,
// apart from SimGrid so that they can be checked, tested and fuzzed without an engine.

#include <cstdint>
#include <functional>
#include <string>

#include "platforms/platform_spec.hpp"

namespace nvlsim {

// 2^20 GPUs (14,563 NVL72 racks) and 2^18 trays: far beyond any machine built, inside what a hostlist
// names, and with at most 256 links per GPU every component count (GPUs x links) stays inside int.
inline constexpr std::int64_t kMaxPlatformGpus = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxPlatformTrays = std::int64_t{1} << 18;

// The value of property `key` ("nvlsim.domains"), or nullptr when the file does not set it.
using PropertyLookup = std::function<const char*(const std::string& key)>;

// Every number must be finite and inside the bounds docs/inputs.md lists (they keep GPU, tray and
// component counts inside int and time and memory bounded). Throws InputError
// "FILE: property nvlsim.KEY: what is wrong".
PlatformSpec read_platform_properties(const PropertyLookup& lookup, const std::string& file);

}  // namespace nvlsim
