#include "analysis/sample_steps.hpp"

#include <fmt/format.h>

#include <cmath>

#include "models/input_error.hpp"

namespace nvlsim {

std::vector<SampleRow> sample_rows(std::span<const StateSample> samples, double step) {
  std::vector<SampleRow> rows;
  if (samples.empty()) return rows;
  if (step <= 0) {
    for (std::size_t i = 0; i < samples.size(); ++i) rows.push_back({samples[i].time, i});
    return rows;
  }
  const double first = std::ceil(samples.front().time / step), last = std::floor(samples.back().time / step);
  // k counts in a double, exact while below 2^53.
  if (last > 0x1p53)
    throw InputError(
        fmt::format("sample step {} s: too fine for times up to {} s", step, samples.back().time));
  if (last - first + 1 > kMaxSampleRows)
    throw InputError(
        fmt::format("sample step {} s: {:.3g} timeseries rows from {} s to {} s, more than {:.0f}; "
                    "use a step of at least {:.3g} s",
                    step, last - first + 1, samples.front().time, samples.back().time, kMaxSampleRows,
                    (samples.back().time - samples.front().time) / (kMaxSampleRows - 1)));
  std::size_t i = 0;
  // k x step rather than a running sum, so step times carry no accumulated rounding.
  for (double k = first;; ++k) {
    const double t = k * step;
    if (t > samples.back().time) break;
    while (i + 1 < samples.size() && samples[i + 1].time <= t) ++i;
    rows.push_back({t, i});
  }
  return rows;
}

}  // namespace nvlsim
