#pragma once
// Options whose values are numbers, checked against their flag's range with nvlsim's messages; and the one
// way the CLI reports bad input.

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>

#include "models/input_error.hpp"

namespace nvlsim {

// Input errors of the command line read "nvlsim: --flag: what is wrong" and exit with status 2.
[[noreturn]] inline void fail(std::string_view flag, std::string_view what) {
  throw InputError(fmt::format("nvlsim: {}: {}", flag, what));
}

// A number in [min_value, max_value]. NaN and infinities are refused, as no range holds them; a number
// too large for its type is out of the range, not "not a number".
template <class T>
T parse_number(std::string_view flag, const std::string& text, T min_value, T max_value) {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const auto range = [&] {
    fail(flag, fmt::format("must be between {} and {}, got {}", min_value, max_value, text));
  };
  if (ec == std::errc::result_out_of_range && end == text.data() + text.size()) range();
  if (ec != std::errc{} || end != text.data() + text.size())
    fail(flag, fmt::format("not a number: \"{}\"", text));
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v)) fail(flag, fmt::format("must be a finite number, got {}", text));
  }
  if (v < min_value || v > max_value) range();
  return v;
}

// `name` takes one number into `target` (a T or an optional T), range-checked when given; `metavar` names
// the value in --help.
template <class T, class Target>
CLI::Option* add_number(CLI::App& app, const std::string& name, Target& target, T min_value, T max_value,
                        const std::string& metavar, const std::string& help) {
  const std::string flag = name.substr(name.rfind(',') + 1);  // "-o,--output" reports as --output
  return app
      .add_option_function<std::string>(
          name,
          [&target, flag, min_value, max_value](const std::string& text) {
            target = parse_number<T>(flag, text, min_value, max_value);
          },
          help)
      ->type_name(metavar);
}

}  // namespace nvlsim
