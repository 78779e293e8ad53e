#pragma once
// Which state sample each timeseries.csv row shows: every change, or the state at fixed steps.

#include <span>
#include <vector>

#include "analysis/records/state_sample.hpp"

namespace nvlsim {

struct SampleRow {
  double time = 0;         // s
  std::size_t sample = 0;  // index of the sample in force at `time`
};

// Rows a fixed step may give one policy; a step that asks more (1 ns over a week) would take the memory
// and disk of the machine rather than show anything more.
inline constexpr double kMaxSampleRows = 1e7;

// step 0: one row per sample, at its time. step > 0: rows at every multiple of `step` from the first
// sample's time to the last's, each showing the latest sample at or before it; throws InputError when
// they would be more than kMaxSampleRows. O(samples + rows).
std::vector<SampleRow> sample_rows(std::span<const StateSample> samples, double step);

}  // namespace nvlsim
