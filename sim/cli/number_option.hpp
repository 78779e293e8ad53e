#pragma once
// Options whose values are numbers, checked against their flag's range with nvlsim's messages; and the one
// way the CLI reports bad input.

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

#include "models/input_error.hpp"
#include "models/read_number.hpp"

namespace nvlsim {

// Input errors of the command line read "nvlsim: --flag: what is wrong" and exit with status 2.
[[noreturn]] inline void fail(std::string_view flag, std::string_view what) {
  throw InputError(fmt::format("nvlsim: {}: {}", flag, what));
}

// A number in [min_value, max_value]. NaN and infinities are refused, as no range holds them; a number
// too large for its type is out of the range, not "not a number".
template <class T>
T parse_number(std::string_view flag, const std::string& text, T min_value, T max_value) {
  const auto number = read_number<T>(text);
  if (number.error == NumberError::not_a_number) fail(flag, fmt::format("not a number: \"{}\"", text));
  if (number.error == NumberError::not_finite)
    fail(flag, fmt::format("must be a finite number, got {}", text));
  if (number.error == NumberError::out_of_range || number.value < min_value || number.value > max_value)
    fail(flag, fmt::format("must be between {} and {}, got {}", min_value, max_value, text));
  return number.value;
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
