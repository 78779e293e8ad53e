#pragma once
// Time integrals of the cluster's state samples and the fragmentation figures built from them
// (summary.csv; formulas in docs/output.md).

#include <span>

#include "analysis/records/state_sample.hpp"

namespace nvlsim {

// Integrals over a time window, in GPU-seconds (utilizations: in seconds at full use).
struct SampleIntegrals {
  double seconds = 0;  // part of the window the samples cover
  double busy = 0;
  double free = 0;
  double shared_free = 0;  // free shares of partly held GPUs
  double held_idle = 0;
  double down = 0;
  double stranded = 0;
  double failure_stranded = 0;
  double fgd_fragments = 0;
  double idle_queued = 0;     // free + held_idle + shared_free - failure_stranded while jobs wait
  double idle_no_demand = 0;  // the same while the queue is empty
  double nvlink_util = 0;
  double ib_util = 0;
};

// Each sample holds from its time to the next sample's, the last one to `to`; only [from, to] counts.
// One pass over the samples; all zero when there are none.
SampleIntegrals integrate(std::span<const StateSample> samples, double from, double to);

struct FragmentationMetrics {
  double stranded_gpu_hours = 0;
  // stranded / idle (free + held + shared free) GPU-time, 0-1; 0 when nothing was ever idle
  double fragmentation = 0;
  double idle_while_queued_gpu_hours = 0;
  // FGD fragment / free (whole and shared) GPU-time, 0-1; 0 when nothing was ever free
  double fgd_fragmentation = 0;
};

FragmentationMetrics fragmentation_metrics(const SampleIntegrals& integrals);

}  // namespace nvlsim
