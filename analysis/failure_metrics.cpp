#include "analysis/failure_metrics.hpp"

namespace nvlsim {

FailureMetrics failure_metrics(std::span<const AttemptRecord> killed, const SampleIntegrals& integrals,
                               double busy_gpu_seconds, int platform_gpus, double makespan) {
  FailureMetrics f;
  f.jobs_killed = static_cast<long>(killed.size());
  double lost = 0;
  for (const AttemptRecord& k : killed) lost += k.held_gpus() * (k.finish - k.start - k.work_kept);
  f.lost_work_gpu_hours = lost / 3600;
  f.down_gpu_hours = integrals.down / 3600;
  f.failure_stranded_gpu_hours = integrals.failure_stranded / 3600;
  const double available = platform_gpus * makespan - integrals.down;
  if (available > 0) f.goodput = (busy_gpu_seconds - lost) / available;
  if (makespan > 0) f.availability = available / (platform_gpus * makespan);
  return f;
}

}  // namespace nvlsim
