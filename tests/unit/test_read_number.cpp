// read_number: the one place text becomes a number; every parser words its own errors on its answer.

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>

#include "models/read_number.hpp"

using nvlsim::NumberError;
using nvlsim::read_number;

TEST_CASE("the whole text is one number", "[read_number]") {
  CHECK(read_number<int>("42").value == 42);
  CHECK(read_number<int>("-7").value == -7);
  CHECK(read_number<std::int64_t>("9223372036854775807").value == INT64_MAX);
  CHECK(read_number<double>("2.5e3").value == 2500);
  CHECK(read_number<double>("-0.125").value == -0.125);
  CHECK(read_number<unsigned>("007").value == 7);
  CHECK(read_number<int>("0"));
}

TEST_CASE("text that is not one number", "[read_number]") {
  for (const char* text : {"", " 1", "1 ", "+1", "12x", "x", "1.5", "1e3", "0x10", "--1", "-"})
    CHECK(read_number<int>(text).error == NumberError::not_a_number);
  for (const char* text : {"", "1.5.", ".", "e5", "1e", "+2", "0x1p3", "1,5"})
    CHECK(read_number<double>(text).error == NumberError::not_a_number);
  CHECK(read_number<unsigned>("-1").error == NumberError::not_a_number);
  // A number too large with text after it is still not a number: the text is the fault.
  CHECK(read_number<int>("99999999999x").error == NumberError::not_a_number);
  CHECK_FALSE(read_number<int>("abc"));
}

TEST_CASE("a number beyond the type is out of range, not garbage", "[read_number]") {
  CHECK(read_number<int>("2147483648").error == NumberError::out_of_range);
  CHECK(read_number<int>("-2147483649").error == NumberError::out_of_range);
  CHECK(read_number<std::int64_t>("9223372036854775808").error == NumberError::out_of_range);
  CHECK(read_number<double>("1e999").error == NumberError::out_of_range);
  CHECK(read_number<double>("-1e999").error == NumberError::out_of_range);
  CHECK(read_number<double>("1e-400").error == NumberError::out_of_range);  // below the smallest double
  CHECK(read_number<int>("2147483647").value == 2147483647);
}

TEST_CASE("infinities and NaN are read but not finite", "[read_number]") {
  for (const char* text : {"inf", "-inf", "infinity", "nan", "NaN"}) {
    const auto read = read_number<double>(text);
    CHECK(read.error == NumberError::not_finite);
    CHECK_FALSE(std::isfinite(read.value));
  }
  // Integers have no such words.
  CHECK(read_number<int>("inf").error == NumberError::not_a_number);
}
