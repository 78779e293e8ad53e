#pragma once
// What failures cost a policy (summary.csv; formulas in docs/output.md).

#include <span>

#include "analysis/records/attempt_record.hpp"
#include "analysis/time_metrics.hpp"

namespace nvlsim {

struct FailureMetrics {
  long jobs_killed = 0;                   // attempts a failure killed
  double down_gpu_hours = 0;              // failed GPUs awaiting repair (samples)
  double failure_stranded_gpu_hours = 0;  // healthy idle GPUs the policy could not use because of a failure
  double lost_work_gpu_hours = 0;         // GPU-time of killed attempts not saved by a checkpoint
  double goodput = 0;       // (busy - lost work) / (GPUs x makespan - down), 0-1; 0 for an empty window
  double availability = 0;  // 1 - down / (GPUs x makespan), 0-1; 0 for an empty window
  long rack_failures = 0;   // whole racks that failed within the window (an NVL576 midplane return is one)
};

// busy_gpu_seconds: every attempt's GPUs x execution time, killed ones included.
FailureMetrics failure_metrics(std::span<const AttemptRecord> killed, const SampleIntegrals& integrals,
                               double busy_gpu_seconds, int platform_gpus, double makespan);

}  // namespace nvlsim
