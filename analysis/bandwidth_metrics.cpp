#include "analysis/bandwidth_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/distribution.hpp"

namespace nvlsim {

BandwidthMetrics bandwidth_metrics(std::span<const Job> jobs, std::span<const JobOutcome> outcomes,
                                   const SampleIntegrals& integrals, double makespan) {
  BandwidthMetrics b;
  std::vector<Weighted> efficiencies;
  double cross_domain = 0, slowdown = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobOutcome& o = outcomes[i];
    if (o.state == FinalState::rejected) continue;
    const double gpus = o.held_gpus();
    const double run = o.finish - o.start;
    if (!std::isnan(o.bw_efficiency)) efficiencies.push_back({o.bw_efficiency, gpus * run});
    if (o.domains > 1) cross_domain += gpus * run;
    // Placement can only lengthen a job against its reference placement: a negative difference is
    // rounding, so it is clamped rather than credited.
    if (o.state == FinalState::completed_successfully)
      slowdown += gpus * std::max(0.0, run - jobs[i].run_time);
  }
  b.bw_efficiency_p10 = weighted_quantile(efficiencies, 0.1);
  b.bw_efficiency_p50 = weighted_quantile(efficiencies, 0.5);
  b.bw_efficiency_p90 = weighted_quantile(efficiencies, 0.9);
  b.cross_domain_gpu_hours = cross_domain / 3600;
  b.slowdown_gpu_hours = slowdown / 3600;
  if (makespan > 0) {
    b.nvlink_utilization = integrals.nvlink_util / makespan;
    b.ib_utilization = integrals.ib_util / makespan;
  }
  return b;
}

}  // namespace nvlsim
