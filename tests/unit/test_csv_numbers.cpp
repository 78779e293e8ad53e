// CSV numbers: append_number writes whole numbers through integer formatting, which must give exactly
// the text fmt's shortest form gives, so that outputs stay byte-identical.

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "analysis/csv_text.hpp"

namespace {

std::string shortest(double v) {
  return fmt::format("{}", v);
}

}  // namespace

TEST_CASE("append_number writes what fmt's shortest form writes for whole and fractional numbers", "[csv]") {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                100.0,
                                1e5,
                                123456.0,
                                86400.0,
                                1e14,
                                1e15,
                                -1e15,
                                1e16,
                                1e20,
                                1e300,
                                0.5,
                                -2.25,
                                1e-5,
                                1e-7,
                                0.1,
                                1.0 / 3,
                                999999999999999.0,
                                999999999999999.5};
  for (double v = 1e15 - 8; v <= 1e15 + 8; ++v) values.push_back(v);
  std::mt19937_64 random(7);
  for (int k = 0; k < 20000; ++k) {
    const double magnitude = std::pow(10.0, std::uniform_real_distribution<double>(0, 17)(random));
    const double v = std::trunc(std::uniform_real_distribution<double>(-magnitude, magnitude)(random));
    values.push_back(v);
    values.push_back(v + 0.5);
    // Fractions of every magnitude, shortest forms of up to 17 digits and exponents either side.
    const double scale = std::pow(10.0, std::uniform_int_distribution<int>(-320, 308)(random));
    values.push_back(std::uniform_real_distribution<double>(-1, 1)(random) * scale);
  }
  for (double v : values) {
    std::string line = "x,";
    nvlsim::append_number(line, v);
    INFO(v);
    CHECK(line == "x," + shortest(v));
    CHECK(nvlsim::parse_number(line.substr(2)) == v);
  }
}

TEST_CASE("append_number leaves undefined values empty", "[csv]") {
  for (double v : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    std::string line;
    nvlsim::append_number(line, v);
    CHECK(line.empty());
  }
}
