#include "analysis/idle_cost.hpp"

namespace nvlsim {

IdleCost idle_cost(int platform_gpus, double makespan, double busy_gpu_seconds,
                   const SampleIntegrals& integrals, double gpu_hour_usd) {
  IdleCost c;
  c.gpu_hour_usd = gpu_hour_usd;
  c.busy_gpu_hours = busy_gpu_seconds / 3600;
  c.idle_gpu_hours = (platform_gpus * makespan - busy_gpu_seconds) / 3600;
  c.idle_no_demand_gpu_hours = integrals.idle_no_demand / 3600;
  c.idle_failure_gpu_hours = (integrals.down + integrals.failure_stranded) / 3600;
  c.idle_scheduling_gpu_hours = c.idle_gpu_hours - c.idle_no_demand_gpu_hours - c.idle_failure_gpu_hours;
  return c;
}

}  // namespace nvlsim
