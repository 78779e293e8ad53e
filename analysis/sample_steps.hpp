#pragma once
// Which state sample each timeseries.csv row shows: every change, or the state at fixed steps.

#include <span>
#include <vector>

#include "analysis/state_sample.hpp"

namespace nvlsim {

struct SampleRow {
  double time = 0;         // s
  std::size_t sample = 0;  // index of the sample in force at `time`
};

// step 0: one row per sample, at its time. step > 0: rows at every multiple of `step` from the first
// sample's time to the last's, each showing the latest sample at or before it. O(samples + rows).
std::vector<SampleRow> sample_rows(std::span<const StateSample> samples, double step);

}  // namespace nvlsim
