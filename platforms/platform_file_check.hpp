#pragma once
// What nvlsim checks of a platform file before SimGrid opens it: SimGrid reads any path it is given, so a
// folder failed with "input in flex scanner failed" naming no file, and a pipe or an endless device would
// be read without bound.

#include <cstdint>
#include <filesystem>

namespace nvlsim {

// Ten times the largest platform `nvlsim platform` writes (4,096 racks, 87 MB); SimGrid takes several
// times a file's size in memory while it parses, so a wrong path (a disk image) must not reach it.
constexpr std::uintmax_t kMaxPlatformBytes = std::uintmax_t{1} << 30;

// Throws InputError "FILE: cannot open: REASON", "FILE: is a folder, expected a platform XML file",
// "FILE: not a regular file, expected a platform XML file" or "FILE: N bytes, more than the 1024 MiB a
// platform file may have".
void check_platform_file(const std::filesystem::path& path);

}  // namespace nvlsim
