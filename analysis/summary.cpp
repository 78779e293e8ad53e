#include "analysis/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nvlsim {

Summary summarize(const std::string& policy, std::span<const Job> jobs, std::span<const JobOutcome> outcomes,
                  std::span<const StateSample> samples, int platform_gpus, double gpu_hour_usd,
                  std::span<const AttemptRecord> killed, std::span<const double> rack_failures) {
  Summary s;
  s.policy = policy;
  s.nb_jobs = static_cast<long>(jobs.size());
  double first_submit = std::numeric_limits<double>::infinity();
  double last_finish = -std::numeric_limits<double>::infinity();
  double wait_sum = 0, turnaround_sum = 0, slowdown_sum = 0, busy = 0, bw_weighted = 0, bw_weight = 0;
  double timed_out = 0;  // GPU-s of jobs killed at their time limit: work no one gets back
  long started = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobOutcome& o = outcomes[i];
    switch (o.state) {
      case FinalState::completed_successfully:
        ++s.nb_jobs_success;
        break;
      case FinalState::completed_walltime_reached:
      case FinalState::completed_killed:
        ++s.nb_jobs_killed;
        break;
      case FinalState::rejected:
        ++s.nb_jobs_rejected;
        continue;
      case FinalState::completed_failed:
        break;
    }
    ++started;
    const double wait = o.start - jobs[i].submit_time;
    const double run = o.finish - o.start;
    const double turnaround = o.finish - jobs[i].submit_time;
    first_submit = std::min(first_submit, jobs[i].submit_time);
    last_finish = std::max(last_finish, o.finish);
    wait_sum += wait;
    s.max_waiting_time = std::max(s.max_waiting_time, wait);
    turnaround_sum += turnaround;
    slowdown_sum += std::max(1.0, turnaround / std::max(run, kSlowdownTau));
    const double gpu_seconds = run * o.held_gpus();
    busy += gpu_seconds;
    if (o.state == FinalState::completed_walltime_reached) timed_out += gpu_seconds;
    if (o.domains > 1) ++s.cross_domain_jobs;
    if (!std::isnan(o.bw_efficiency)) {
      bw_weighted += o.bw_efficiency * gpu_seconds;
      bw_weight += gpu_seconds;
    }
  }
  if (started > 0) {
    s.makespan = last_finish - first_submit;
    s.mean_waiting_time = wait_sum / started;
    s.mean_turnaround_time = turnaround_sum / started;
    s.mean_slowdown = slowdown_sum / started;
  }
  // A job's last attempt is its outcome, already counted, even when a failure ended it.
  for (const AttemptRecord& k : killed)
    if (k.attempt < outcomes[k.job].restarts) busy += k.held_gpus() * (k.finish - k.start);
  if (s.makespan > 0) s.gpu_utilization = busy / (platform_gpus * s.makespan);
  s.bw_utilization = bw_weight > 0 ? bw_weighted / bw_weight : std::numeric_limits<double>::quiet_NaN();
  const SampleIntegrals integrals =
      started > 0 ? integrate(samples, first_submit, last_finish) : SampleIntegrals{};
  s.bandwidth = bandwidth_metrics(jobs, outcomes, integrals, s.makespan);
  s.fragmentation = fragmentation_metrics(integrals);
  s.idle = idle_cost(platform_gpus, s.makespan, busy, integrals, gpu_hour_usd);
  s.slowdown_cost_usd = s.bandwidth.slowdown_gpu_hours * gpu_hour_usd;
  s.failures = failure_metrics(killed, integrals, busy, platform_gpus, s.makespan);
  if (started > 0)
    s.failures.rack_failures = std::count_if(rack_failures.begin(), rack_failures.end(),
                                             [&](double t) { return t >= first_submit && t <= last_finish; });
  const double delivered_hours =
      (busy - timed_out) / 3600 - s.failures.lost_work_gpu_hours - s.bandwidth.slowdown_gpu_hours;
  s.cost_per_delivered_gpu_hour_usd = delivered_hours > 0
                                          ? platform_gpus * s.makespan / 3600 * gpu_hour_usd / delivered_hours
                                          : std::numeric_limits<double>::quiet_NaN();
  return s;
}

}  // namespace nvlsim
