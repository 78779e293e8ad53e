// Mean, standard deviation and the Student t interval of sweep_summary.csv, against table figures and
// intervals worked by hand.

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "analysis/seed_statistics.hpp"

using nvlsim::sample_statistics;
using nvlsim::student_t_quantile;

TEST_CASE("Student t quantiles match the printed table", "[statistics]") {
  // Two-sided 95% column of any t table (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
  CHECK(student_t_quantile(0.975, 1) == Approx(12.706).margin(5e-4));
  CHECK(student_t_quantile(0.975, 4) == Approx(2.776).margin(5e-4));
  CHECK(student_t_quantile(0.975, 9) == Approx(2.262).margin(5e-4));
  CHECK(student_t_quantile(0.975, 30) == Approx(2.042).margin(5e-4));
}

TEST_CASE("the 95% interval of five values, worked by hand", "[statistics]") {
  // mean 3; squared deviations 4+1+0+1+4 = 10, sd = sqrt(10/4) = 1.58114; half width =
  // 2.77645 * 1.58114 / sqrt(5) = 1.96324.
  const std::vector<double> values = {1, 2, 3, 4, 5};
  const auto s = sample_statistics(values);
  CHECK(s.n == 5);
  CHECK(s.mean == 3);
  CHECK(s.sd == Approx(1.58114).epsilon(1e-5));
  CHECK(s.ci95_low == Approx(3 - 1.96324).epsilon(1e-5));
  CHECK(s.ci95_high == Approx(3 + 1.96324).epsilon(1e-5));
}

TEST_CASE("large values close together keep their spread", "[statistics]") {
  // Makespans of 1e9 s differing by seconds: sd of {1e9, 1e9+2} is sqrt(2).
  const std::vector<double> values = {1e9, 1e9 + 2};
  CHECK(sample_statistics(values).sd == Approx(std::sqrt(2.0)).epsilon(1e-9));
}

TEST_CASE("one value has a mean and no spread and none has nothing", "[statistics]") {
  const std::vector<double> one = {7};
  const auto s = sample_statistics(one);
  CHECK(s.n == 1);
  CHECK(s.mean == 7);
  CHECK(std::isnan(s.sd));
  CHECK(std::isnan(s.ci95_low));
  CHECK(std::isnan(s.ci95_high));
  const auto none = sample_statistics({});
  CHECK(none.n == 0);
  CHECK(std::isnan(none.mean));
}
