#pragma once
// Walks command-line arguments, with values and numbers checked against their flag.

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "models/input_error.hpp"

namespace nvlsim {

[[noreturn]] inline void fail(std::string_view flag, std::string_view what) {
  throw InputError(fmt::format("nvlsim: {}: {}", flag, what));
}

class Args {
 public:
  explicit Args(std::span<const std::string> args) : args_(args) {}
  // True when every argument is read. A value given as --flag=value that its flag did not take is an error
  // here, after the flag was handled.
  bool done() {
    if (pending_) fail(flag_, fmt::format("takes no value, got \"{}\"", *pending_));
    return i_ >= args_.size();
  }
  // The next flag; `--flag=value` gives `--flag` and keeps `value` for value().
  std::string next() {
    const std::string& arg = args_[i_++];
    const auto eq = arg.find('=');
    if (arg.starts_with("--") && eq != std::string::npos) {
      flag_ = arg.substr(0, eq);
      pending_ = arg.substr(eq + 1);
    } else {
      flag_ = arg;
    }
    return flag_;
  }
  std::string value(std::string_view flag) {
    if (pending_) {
      std::string v = std::move(*pending_);
      pending_.reset();
      return v;
    }
    if (i_ >= args_.size()) fail(flag, "needs a value");
    return args_[i_++];
  }
  // A number in [min_value, max_value]; NaN and infinities are refused, as no range holds them.
  template <class T>
  T number(std::string_view flag, T min_value, T max_value) {
    const std::string text = value(flag);
    T v{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size())
      fail(flag, fmt::format("not a number: \"{}\"", text));
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(v)) fail(flag, fmt::format("must be a finite number, got {}", text));
    }
    if (v < min_value || v > max_value)
      fail(flag, fmt::format("must be between {} and {}, got {}", min_value, max_value, text));
    return v;
  }

 private:
  std::span<const std::string> args_;
  std::size_t i_ = 0;
  std::string flag_;                    // the flag next() returned last
  std::optional<std::string> pending_;  // its =value, until value() takes it
};

}  // namespace nvlsim
