#pragma once
// Statistics of one figure over the seeds of a sweep: mean, standard deviation and the 95% confidence
// interval of the mean (Student t), as sweep_summary.csv reports them (docs/output.md).

#include <cstddef>
#include <span>

namespace nvlsim {

struct SampleStatistics {
  std::size_t n = 0;
  double mean = 0;      // NaN when n = 0
  double sd = 0;        // sample standard deviation (n - 1 in the denominator); NaN when n < 2
  double ci95_low = 0;  // mean -+ t(0.975, n - 1) * sd / sqrt(n); NaN when n < 2
  double ci95_high = 0;
};

// The p-quantile of Student's t distribution with `df` (>= 1) degrees of freedom.
double student_t_quantile(double p, std::size_t df);

// Of every value given (none NaN).
SampleStatistics sample_statistics(std::span<const double> values);

}  // namespace nvlsim
