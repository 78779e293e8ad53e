#pragma once
// Per-policy summary figures over the job outcomes (summary.csv; see docs/output.md).

#include <span>
#include <string>

#include "analysis/bandwidth_metrics.hpp"
#include "analysis/failure_metrics.hpp"
#include "analysis/idle_cost.hpp"
#include "analysis/records/attempt_record.hpp"
#include "analysis/records/job_outcome.hpp"
#include "analysis/records/state_sample.hpp"
#include "analysis/time_metrics.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

struct Summary {
  std::string policy;
  long nb_jobs = 0;
  long nb_jobs_success = 0;
  long nb_jobs_killed = 0;
  long nb_jobs_rejected = 0;
  double makespan = 0;              // s: last finish - first submit of the jobs that ran
  double mean_waiting_time = 0;     // s, over jobs that started
  double max_waiting_time = 0;      // s
  double mean_turnaround_time = 0;  // s
  double mean_slowdown = 0;         // bounded slowdown, tau = 10 s
  double gpu_utilization = 0;       // busy GPU-s / (GPUs x makespan)
  long cross_domain_jobs = 0;       // started jobs spanning more than one NVLink domain
  double bw_utilization = 0;        // GPU-time-weighted mean bw_efficiency; NaN when no job communicated
  BandwidthMetrics bandwidth;
  FragmentationMetrics fragmentation;
  IdleCost idle;
  FailureMetrics failures;
  double slowdown_cost_usd = 0;  // bandwidth.slowdown_gpu_hours at the idle GPU-hour price
  // The platform's GPU-hours over the makespan at the GPU-hour price, per GPU-hour of work delivered: busy
  // minus lost work, the slowdown placement caused and jobs killed at their time limit; NaN when none.
  double cost_per_delivered_gpu_hour_usd = 0;
};

inline constexpr double kSlowdownTau = 10.0;

// Sample-based figures integrate `samples` over [first submit, last finish] of the jobs that ran. Busy
// time counts the attempts failures killed (`killed`) as well as each job's last one; `rack_failures`
// are the times whole racks failed, counted within that window.
Summary summarize(const std::string& policy, std::span<const Job> jobs, std::span<const JobOutcome> outcomes,
                  std::span<const StateSample> samples, int platform_gpus, double gpu_hour_usd,
                  std::span<const AttemptRecord> killed = {}, std::span<const double> rack_failures = {});

}  // namespace nvlsim
