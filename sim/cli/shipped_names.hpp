#pragma once
// Names the README tells users to run that need no file: `--platform nvl72x64.xml` and `--trace mix.swf`
// work from any directory. A bare name (no folder) that is not an existing file means the built-in
// platform or the shipped week; an existing file of that name always wins.

#include <optional>
#include <string>

namespace nvlsim {

// Racks of the built-in platform a run without --platform replays on (nvl72x8).
constexpr int kDefaultRacks = 8;

// N for a bare `nvl72xN` or `nvl72xN.xml` (1 <= N <= 4096) that is not an existing file; else nullopt.
std::optional<int> builtin_platform_racks(const std::string& name);

// True for a bare `mix.swf` that is not an existing file: the shipped week of workloads/mix.swf, which
// the generator writes byte for byte (shipped_mix_params()).
bool is_shipped_mix(const std::string& name);

}  // namespace nvlsim
