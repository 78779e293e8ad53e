#include "analysis/time_metrics.hpp"

#include <algorithm>

namespace nvlsim {

SampleIntegrals integrate(std::span<const StateSample> samples, double from, double to) {
  SampleIntegrals r;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const StateSample& s = samples[i];
    const double begin = std::max(s.time, from);
    const double end = std::min(i + 1 < samples.size() ? samples[i + 1].time : to, to);
    if (end <= begin) continue;
    const double dt = end - begin;
    r.seconds += dt;
    r.busy += s.busy_gpus * dt;
    r.free += s.free_gpus * dt;
    r.shared_free += s.shared_free_gpus * dt;
    r.held_idle += s.held_idle_gpus * dt;
    r.down += s.down_gpus * dt;
    r.stranded += s.stranded_gpus * dt;
    r.failure_stranded += s.failure_stranded_gpus * dt;
    r.fgd_fragments += s.fgd_fragment_gpus * dt;
    (s.queued_jobs > 0 ? r.idle_queued : r.idle_no_demand) +=
        (s.free_gpus + s.held_idle_gpus + s.shared_free_gpus - s.failure_stranded_gpus) * dt;
    r.nvlink_util += s.nvlink_util * dt;
    r.ib_util += s.ib_util * dt;
  }
  return r;
}

FragmentationMetrics fragmentation_metrics(const SampleIntegrals& in) {
  FragmentationMetrics f;
  f.stranded_gpu_hours = in.stranded / 3600;
  f.idle_while_queued_gpu_hours = in.idle_queued / 3600;
  // Stranded GPUs may be held by whole-block jobs, so their share is of all idle (free or held) time.
  const double idle = in.free + in.held_idle + in.shared_free;
  if (idle > 0) f.fragmentation = in.stranded / idle;
  if (in.free + in.shared_free > 0) f.fgd_fragmentation = in.fgd_fragments / (in.free + in.shared_free);
  return f;
}

}  // namespace nvlsim
