#include "schedulers/policy_params.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string>

#include "models/input_error.hpp"

namespace nvlsim {

std::optional<std::string_view> find_param(const PolicySpec& spec, std::string_view key) {
  for (const PolicyParam& param : spec.params) {
    if (param.key == key) return std::string_view(param.value);
  }
  return std::nullopt;
}

int int_param(const PolicySpec& spec, std::string_view key, int fallback, int min, int max) {
  const std::optional<std::string_view> text = find_param(spec, key);
  if (!text) return fallback;
  int value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || value < min || value > max) {
    throw InputError(fmt::format("policy spec '{}': parameter {}='{}' is not an integer in [{}, {}]",
                                 spec.text, key, *text, min, max));
  }
  return value;
}

bool flag_param(const PolicySpec& spec, std::string_view key) {
  const std::optional<std::string_view> text = find_param(spec, key);
  if (!text) return false;
  if (*text != "0" && *text != "1") {
    throw InputError(
        fmt::format("policy spec '{}': parameter {}='{}' must be 0 or 1", spec.text, key, *text));
  }
  return *text == "1";
}

}  // namespace nvlsim
