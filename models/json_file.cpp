#include "models/json_file.hpp"

#include <fmt/format.h>

#include <fstream>

#include "models/input_error.hpp"

namespace nvlsim {

nlohmann::json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open", path.string()));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", path.string(), e.what()));
  }
}

}  // namespace nvlsim
