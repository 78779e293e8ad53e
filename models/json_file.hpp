#pragma once
// Reading a JSON input file, with errors that name it.

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

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
// "FILE: not valid JSON: ..." for syntax errors, numbers beyond a double ("1e999" is nlohmann's
// out_of_range, not a parse_error) and a key given twice in one object (nlohmann keeps the last one
// without a word: {"min_block_nodes": 4, "min_block_nodes": 8} ran with 8).
template <class Json = nlohmann::json>
Json read_json_file(const std::filesystem::path& path, std::uintmax_t max_bytes = kMaxJsonBytes) {
  const std::string text = read_json_text(path, max_bytes);
  std::vector<std::set<std::string>> keys;  // of each object being read, innermost last
  const auto no_repeats = [&](int, nlohmann::json::parse_event_t event, Json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) keys.emplace_back();
    if (event == Event::object_end) keys.pop_back();
    if (event == Event::key && !keys.back().insert(parsed.template get<std::string>()).second) {
      throw InputError(fmt::format("{}: not valid JSON: key \"{}\" given twice in one object", path.string(),
                                   parsed.template get<std::string>()));
    }
    return true;
  };
  try {
    return Json::parse(text, no_repeats);
  } catch (const typename Json::exception& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", path.string(), e.what()));
  }
}

}  // namespace nvlsim
