#pragma once
// Idle GPU-time and what it costs, split by cause (summary.csv; formulas in docs/output.md).

#include "analysis/time_metrics.hpp"

namespace nvlsim {

struct IdleCost {
  double gpu_hour_usd = 0;
  double busy_gpu_hours = 0;             // from the jobs: sum of GPUs x execution_time
  double idle_gpu_hours = 0;             // GPUs x makespan - busy, from the jobs
  double idle_no_demand_gpu_hours = 0;   // free or held while nothing waits (samples)
  double idle_failure_gpu_hours = 0;     // down, or healthy but stranded by a failure (samples)
  double idle_scheduling_gpu_hours = 0;  // the rest: free or held while jobs wait
  double idle_cost_usd() const { return idle_gpu_hours * gpu_hour_usd; }
  double idle_no_demand_cost_usd() const { return idle_no_demand_gpu_hours * gpu_hour_usd; }
  double idle_scheduling_cost_usd() const { return idle_scheduling_gpu_hours * gpu_hour_usd; }
  double idle_failure_cost_usd() const { return idle_failure_gpu_hours * gpu_hour_usd; }
};

// The total comes from the jobs, so that idle = GPUs x makespan - busy holds exactly; the scheduling
// part is the remainder, so that the parts add up to it. When samples and jobs agree, that remainder
// equals the sampled idle_queued integral (the end-to-end tests check it).
IdleCost idle_cost(int platform_gpus, double makespan, double busy_gpu_seconds,
                   const SampleIntegrals& integrals, double gpu_hour_usd);

}  // namespace nvlsim
