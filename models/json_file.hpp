#pragma once
// Reading a JSON input file, with errors that name it.

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "models/input_error.hpp"

namespace nvlsim {

// JSON inputs are configuration (failure models, job classes, policy files) of a few kilobytes: 64 MiB is
// far beyond any, and bounds what a wrong path (a trace, a disk image, /dev/zero) costs, since a parsed
// document takes several times its text in memory.
constexpr std::uintmax_t kMaxJsonBytes = std::uintmax_t{64} << 20;

// The file's text, at most max_bytes (whole MiB), read a chunk at a time and refused as soon as it grows
// past them, so that a device or a FIFO without end is refused too. Throws InputError "FILE: is a folder,
// expected a JSON file", "FILE: cannot open", "FILE: cannot read" or "FILE: [N bytes, ]more than the M MiB a
// JSON file may have", and "FILE: not valid JSON: a NUL byte at offset N ..." for text holding a NUL.
std::string read_json_text(const std::filesystem::path& path, std::uintmax_t max_bytes = kMaxJsonBytes);

// The parsed document (nlohmann::json or ordered_json). Throws read_json_text's errors, and
// "FILE: not valid JSON: ..." for syntax errors and numbers beyond a double ("1e999" is nlohmann's
// out_of_range, not a parse_error).
template <class Json = nlohmann::json>
Json read_json_file(const std::filesystem::path& path, std::uintmax_t max_bytes = kMaxJsonBytes) {
  const std::string text = read_json_text(path, max_bytes);
  try {
    return Json::parse(text);
  } catch (const typename Json::exception& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", path.string(), e.what()));
  }
}

}  // namespace nvlsim
