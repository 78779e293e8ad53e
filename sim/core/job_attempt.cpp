#include "sim/core/job_attempt.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "models/input_error.hpp"

namespace nvlsim {

double Attempt::work_done(double now, double comm_share) const {
  if (now <= work_started) return 0;
  const double per_round = work / rounds;
  double done = round * per_round;
  if (round < rounds) {
    if (communicating)
      done += compute_per_round + (per_round - compute_per_round) * comm_share;
    else
      done += std::min(computed_by(now), compute_per_round);
  }
  return std::min(done, work);
}

double JobProgress::checkpointed(double done, double interval, double run_time) const {
  double saved = saved_work;
  if (interval > 0) saved = std::max(saved, std::floor((saved_work + done) / interval) * interval);
  return std::min(saved, run_time);
}

namespace {

double largest_flow(std::span<const CollectiveStep> steps) {
  double largest = 0;
  for (const auto& step : steps)
    for (const auto& f : step.flows) largest = std::max(largest, f.wire_bytes());
  return largest;
}

}  // namespace

std::vector<std::vector<int>> group_by_zone(const std::vector<int>& gpus, const ClusterShape& shape) {
  std::vector<std::vector<int>> groups;
  int last = -1;
  for (int gpu : gpus) {
    const int zone = shape.zone_of_gpu(gpu);
    if (zone != last) groups.emplace_back();
    groups.back().push_back(gpu);
    last = zone;
  }
  return groups;
}

std::vector<GpuGroup> gpu_groups(const std::vector<std::vector<int>>& group_gpus, const ClusterShape& shape) {
  std::vector<GpuGroup> groups;
  int domains = 0;
  int last = -1;
  for (const auto& g : group_gpus) {
    const int domain = shape.domain_of_gpu(g.front());
    if (domain != last) ++domains;
    last = domain;
    groups.push_back({static_cast<int>(g.size()), domains - 1});
  }
  return groups;
}

void plan_rounds(const Job& job, const PlatformSpec& platform, const SimulationConfig& config,
                 ReferenceCosts& references, Attempt& a) {
  const auto& fabric = platform.fabric;
  const JobClass* cls = config.classes.empty() ? nullptr : &config.classes.at(job.job_class);
  const Collective collective = cls ? cls->collective : config.collective;
  const double fraction = cls ? (cls->communicates ? cls->comm_fraction : 0.0) : config.comm_fraction;
  const auto plan = [collective, &fabric](std::span<const GpuGroup> groups, double message) {
    return plan_collective(collective, groups, message, fabric).steps;
  };
  int gpus = 0;
  for (const auto& g : a.groups) gpus += g.gpus;
  const auto [fixed, per_byte] = references.of(collective, gpus);
  a.rounds = config.comm_rounds;
  if (per_byte <= 0 || fraction * a.work / a.rounds <= fixed) {
    a.compute_per_round = a.work / a.rounds;
    return;
  }
  // More rounds make each round's message smaller by at least their ratio (the fixed latency part is
  // paid per round), so one step up is enough but for rounding.
  double message = 0;
  for (;;) {
    message = (fraction * a.work / a.rounds - fixed) / per_byte;
    a.steps = plan(a.groups, message);
    const double largest = largest_flow(a.steps);
    if (largest <= kMaxFlowBytes) break;
    const double wanted = std::ceil(a.rounds * (largest / kMaxFlowBytes));
    if (wanted > kMaxRounds)
      throw InputError(
          fmt::format("job {} (line {}): a run time of {} s is too long to simulate: its "
                      "communication would need more than {} rounds of at most 2^62 bytes",
                      job.id, job.line, job.run_time, kMaxRounds));
    a.rounds = std::max(a.rounds + 1, static_cast<int>(wanted));
  }
  a.compute_per_round = (1.0 - fraction) * a.work / a.rounds;
  for (const auto& step : a.steps) {
    a.step_times.push_back(uncontended_time(std::span(&step, 1), fabric));
    a.round_comm_uncontended += a.step_times.back();
  }
  const GpuGroup one_domain[] = {{gpus, 0}};
  a.ideal_comm_per_round = uncontended_time(plan(one_domain, message), fabric);
}

}  // namespace nvlsim
