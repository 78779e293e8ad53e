#include "analysis/seed_statistics.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <limits>

namespace nvlsim {

double student_t_quantile(double p, std::size_t df) {
  return boost::math::quantile(boost::math::students_t(static_cast<double>(df)), p);
}

SampleStatistics sample_statistics(std::span<const double> values) {
  constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();
  SampleStatistics s{values.size(), kUndefined, kUndefined, kUndefined, kUndefined};
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  if (s.n < 2) return s;
  // Deviations from the mean rather than sum of squares minus square of sum: no cancellation when the
  // values are large and close, as makespans over seeds are.
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(squares / static_cast<double>(s.n - 1));
  const double half = student_t_quantile(0.975, s.n - 1) * s.sd / std::sqrt(static_cast<double>(s.n));
  s.ci95_low = s.mean - half;
  s.ci95_high = s.mean + half;
  return s;
}

}  // namespace nvlsim
