#include "schedulers/policy_spec.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/input_error.hpp"

namespace nvlsim {

namespace {

// Every ':'-separated part, empty ones included, so a stray ':' is reported rather than skipped.
std::vector<std::string_view> split_parts(std::string_view text) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon - start));
    if (colon == std::string_view::npos) return parts;
    start = colon + 1;
  }
}

}  // namespace

PolicySpec parse_policy_spec(std::string_view text) {
  const auto fail = [&](std::string_view why) {
    return InputError(fmt::format("policy spec '{}': {}", text, why));
  };
  const std::vector<std::string_view> parts = split_parts(text);
  PolicySpec spec{std::string(text), std::string(parts.front()), {}};
  if (spec.name.empty()) throw fail("empty policy name");
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string_view part = parts[i];
    const std::size_t equals = part.find('=');
    if (equals == std::string_view::npos || equals == 0 || equals + 1 == part.size()) {
      throw fail(fmt::format("parameter '{}' is not key=value", part));
    }
    PolicyParam param{std::string(part.substr(0, equals)), std::string(part.substr(equals + 1))};
    const bool repeated = std::any_of(spec.params.begin(), spec.params.end(),
                                      [&](const PolicyParam& p) { return p.key == param.key; });
    if (repeated) throw fail(fmt::format("parameter '{}' given twice", param.key));
    spec.params.push_back(std::move(param));
  }
  return spec;
}

std::string PolicyConfig::identity() const {
  const std::string params_text = params.canonical();
  return params_text.empty() ? std::string(type->name) : fmt::format("{}:{}", type->name, params_text);
}

}  // namespace nvlsim
