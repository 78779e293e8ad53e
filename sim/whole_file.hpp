#pragma once
// One output file written in full or not at all, for the commands that write a single file (platform,
// topology, workload): a failed write never leaves a truncated file that parses.

#include <filesystem>
#include <functional>
#include <ostream>

namespace nvlsim {

// Writes PATH.partial, checks every byte reached it, then renames it over PATH. A PATH that exists and is
// no regular file (/dev/stdout, a FIFO) or a symbolic link is written in place, since replacing it would
// replace the link or device, not what it stands for. Throws InputError
// "PATH: cannot write: OS error" when the file cannot be created, std::runtime_error
// "PATH: write failed: OS error" when writing fails (a full disk).
void write_whole_file(const std::filesystem::path& path, const std::function<void(std::ostream&)>& content);

}  // namespace nvlsim
