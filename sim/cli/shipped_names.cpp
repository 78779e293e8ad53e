#include "sim/cli/shipped_names.hpp"

#include <filesystem>
#include <string_view>

#include "models/read_number.hpp"

namespace nvlsim {

namespace {

bool bare_and_absent(const std::string& name) {
  return name.find('/') == std::string::npos && !std::filesystem::exists(name);
}

}  // namespace

std::optional<int> builtin_platform_racks(const std::string& name) {
  if (!bare_and_absent(name)) return std::nullopt;
  std::string_view rest(name);
  if (!rest.starts_with("nvl72x")) return std::nullopt;
  rest.remove_prefix(6);
  if (rest.ends_with(".xml")) rest.remove_suffix(4);
  const auto racks = read_number<int>(rest);
  if (!racks || rest[0] == '0' || racks.value < 1 || racks.value > 4096) return std::nullopt;
  return racks.value;
}

bool is_shipped_mix(const std::string& name) {
  return name == "mix.swf" && bare_and_absent(name);
}

}  // namespace nvlsim
