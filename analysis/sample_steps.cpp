#include "analysis/sample_steps.hpp"

#include <cmath>

namespace nvlsim {

std::vector<SampleRow> sample_rows(std::span<const StateSample> samples, double step) {
  std::vector<SampleRow> rows;
  if (samples.empty()) return rows;
  if (step <= 0) {
    for (std::size_t i = 0; i < samples.size(); ++i) rows.push_back({samples[i].time, i});
    return rows;
  }
  std::size_t i = 0;
  // k x step rather than a running sum, so step times carry no accumulated rounding.
  for (auto k = static_cast<long long>(std::ceil(samples.front().time / step));; ++k) {
    const double t = static_cast<double>(k) * step;
    if (t > samples.back().time) break;
    while (i + 1 < samples.size() && samples[i + 1].time <= t) ++i;
    rows.push_back({t, i});
  }
  return rows;
}

}  // namespace nvlsim
