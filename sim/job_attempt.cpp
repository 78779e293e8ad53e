#include "sim/job_attempt.hpp"

#include <algorithm>
#include <cmath>
#include <span>

namespace nvlsim {

double Attempt::work_done(double now, double comm_share, int rounds) const {
  if (now <= work_started) return 0;
  const double per_round = work / rounds;
  double done = round * per_round;
  if (round < rounds) {
    if (communicating)
      done += compute_per_round + (per_round - compute_per_round) * comm_share;
    else
      done += std::min(now - round_started, compute_per_round);
  }
  return std::min(done, work);
}

double JobProgress::checkpointed(double done, double interval, double run_time) const {
  double saved = saved_work;
  if (interval > 0) saved = std::max(saved, std::floor((saved_work + done) / interval) * interval);
  return std::min(saved, run_time);
}

void plan_rounds(const Job& job, const LoadedPlatform& platform, const SimulationConfig& config, Attempt& a) {
  const auto& fabric = platform.spec.fabric;
  const int rounds = config.comm_rounds;
  const JobClass* cls = config.classes.empty() ? nullptr : &config.classes.at(job.job_class);
  const Collective collective = cls ? cls->collective : config.collective;
  const double fraction = cls ? (cls->communicates ? cls->comm_fraction : 0.0) : config.comm_fraction;
  const auto plan = [collective, &fabric](std::span<const int> counts, double message) {
    return plan_collective(collective, counts, message, fabric.nvlink_sharp);
  };
  // The job runs on every GPU it was given: a whole-tray request rounded up uses the extra GPUs too.
  const int gpus = static_cast<int>(a.allocation.gpus.size());
  const auto reference = reference_placement(gpus, platform.spec.shape.gpus_per_domain());
  const double fixed = uncontended_time(plan(reference, 0.0), fabric);
  const double per_byte = uncontended_time(plan(reference, 1.0), fabric) - fixed;
  const double target = fraction * a.work / rounds;
  if (per_byte <= 0 || target <= fixed) {
    a.compute_per_round = a.work / rounds;
    return;
  }
  const double message = (target - fixed) / per_byte;
  a.compute_per_round = (1.0 - fraction) * a.work / rounds;
  std::vector<int> counts;
  for (const auto& g : a.domain_gpus) counts.push_back(static_cast<int>(g.size()));
  a.steps = plan(counts, message);
  for (const auto& step : a.steps) {
    a.step_times.push_back(uncontended_time(std::span(&step, 1), fabric));
    a.round_comm_uncontended += a.step_times.back();
  }
  const int one_domain[] = {gpus};
  a.ideal_comm_per_round = uncontended_time(plan(one_domain, message), fabric);
}

}  // namespace nvlsim
