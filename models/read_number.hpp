#pragma once
// One number read from text: the whole text as one value of type T, and why not when it is not one.
// Callers word their own errors; this only tells the cases apart, so that every parser of user input
// accepts the same syntax and none forgets the check for trailing text, overflow or infinity.

#include <charconv>
#include <cmath>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace nvlsim {

enum class NumberError {
  none,
  not_a_number,  // empty, not a number, or followed by anything ("12x", "1 ")
  out_of_range,  // a number, but beyond T (for floating point also below its smallest: "1e-400")
  not_finite,    // "inf" or "nan" (floating point only)
};

template <class T>
struct NumberRead {
  T value{};  // the number; for not_finite the infinity or NaN read
  NumberError error = NumberError::none;
  explicit operator bool() const { return error == NumberError::none; }
};

// `text` in std::from_chars's syntax: decimal, no blanks, no '+'; integers without a fraction or exponent.
template <class T>
NumberRead<T> read_number(std::string_view text) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  NumberRead<T> read;
  const char* const end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, read.value);
  if (stop != end || (ec != std::errc{} && ec != std::errc::result_out_of_range)) {
    read.error = NumberError::not_a_number;
  } else if (ec == std::errc::result_out_of_range) {
    read.error = NumberError::out_of_range;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(read.value)) read.error = NumberError::not_finite;
  }
  return read;
}

}  // namespace nvlsim
