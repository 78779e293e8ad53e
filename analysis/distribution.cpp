#include "analysis/distribution.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace nvlsim {

double weighted_quantile(std::span<const Weighted> items, double q) {
  std::vector<Weighted> sorted(items.begin(), items.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const Weighted& a, const Weighted& b) { return a.value < b.value; });
  double total = 0;
  for (const auto& w : sorted) total += w.weight;
  if (!(total > 0)) return std::numeric_limits<double>::quiet_NaN();
  double cumulative = 0;
  for (const auto& w : sorted) {
    cumulative += w.weight;
    if (cumulative >= q * total) return w.value;
  }
  return sorted.back().value;  // q * total beyond the rounded running sum
}

}  // namespace nvlsim
