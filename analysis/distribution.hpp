#pragma once
// Weighted quantiles, so a percentile of jobs can count each job by the GPU-time it held.

#include <span>

namespace nvlsim {

struct Weighted {
  double value = 0;
  double weight = 0;
};

// The smallest value v such that the items with value <= v carry at least q of the total weight
// (no interpolation, so the result is always one of the values). NaN when the total weight is 0.
double weighted_quantile(std::span<const Weighted> items, double q);

}  // namespace nvlsim
