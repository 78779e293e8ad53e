#pragma once
// How well jobs used NVLink bandwidth, and what placement cost them (summary.csv; docs/output.md).

#include <span>

#include "analysis/records/job_outcome.hpp"
#include "analysis/time_metrics.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

struct BandwidthMetrics {
  // bw_efficiency percentiles weighted by GPU-time (GPUs x execution_time), like bw_utilization;
  // NaN when no job communicated.
  double bw_efficiency_p10 = 0;
  double bw_efficiency_p50 = 0;
  double bw_efficiency_p90 = 0;
  double cross_domain_gpu_hours = 0;  // GPU-time of jobs that ran over more than one NVLink domain
  double slowdown_gpu_hours = 0;      // GPU-time successful jobs ran beyond their trace run time
  double nvlink_utilization = 0;      // time average over the makespan, 0-1
  double ib_utilization = 0;
};

BandwidthMetrics bandwidth_metrics(std::span<const Job> jobs, std::span<const JobOutcome> outcomes,
                                   const SampleIntegrals& integrals, double makespan);

}  // namespace nvlsim
