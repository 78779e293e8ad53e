#include "sim/cli/shipped_names.hpp"

#include <charconv>
#include <filesystem>
#include <string_view>

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
  int racks = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), racks);
  if (rest.empty() || error != std::errc{} || end != rest.data() + rest.size() || rest[0] == '0')
    return std::nullopt;
  if (racks < 1 || racks > 4096) return std::nullopt;
  return racks;
}

bool is_shipped_mix(const std::string& name) {
  return name == "mix.swf" && bare_and_absent(name);
}

}  // namespace nvlsim
