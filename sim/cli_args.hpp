#pragma once
// Walks command-line arguments, with values and numbers checked against their flag.

#include <fmt/format.h>

#include <charconv>
#include <span>
#include <string>
#include <string_view>

#include "models/input_error.hpp"

namespace nvlsim {

[[noreturn]] inline void fail(std::string_view flag, std::string_view what) {
  throw InputError(fmt::format("nvlsim: {}: {}", flag, what));
}

class Args {
 public:
  explicit Args(std::span<const std::string> args) : args_(args) {}
  bool done() const { return i_ >= args_.size(); }
  const std::string& next() { return args_[i_++]; }
  const std::string& value(std::string_view flag) {
    if (done()) fail(flag, "needs a value");
    return next();
  }
  template <class T>
  T number(std::string_view flag, T min_value, T max_value) {
    const std::string& text = value(flag);
    T v{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size())
      fail(flag, fmt::format("not a number: \"{}\"", text));
    if (v < min_value || v > max_value)
      fail(flag, fmt::format("must be between {} and {}, got {}", min_value, max_value, text));
    return v;
  }

 private:
  std::span<const std::string> args_;
  std::size_t i_ = 0;
};

}  // namespace nvlsim
