#include "models/json_file.hpp"

#include <fmt/format.h>

#include <fstream>

#include "models/input_error.hpp"

namespace nvlsim {

nlohmann::json read_json_file(const std::filesystem::path& path) {
  // A folder opens as a stream that fails on the first read, which the JSON parser would call
  // "unexpected end of input".
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    throw InputError(fmt::format("{}: is a folder, expected a JSON file", path.string()));
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open", path.string()));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    // Syntax errors, and numbers out of double's range ("1e999" is out_of_range, not a parse_error).
    throw InputError(fmt::format("{}: not valid JSON: {}", path.string(), e.what()));
  }
}

}  // namespace nvlsim
