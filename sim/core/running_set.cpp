#include "sim/core/running_set.hpp"

#include <algorithm>

namespace nvlsim {

RunningSet::RunningSet(const ClusterShape& shape, std::size_t jobs, StateSampler& sampler)
    : state_(shape), sampler_(sampler), index_(jobs, kNone), owner_(shape.gpus(), kNone) {}

void RunningSet::add(std::size_t job, double expected_end, const Allocation& allocation) {
  state_.apply(allocation);
  sampler_.touch(allocation);
  busy_gpus_ += static_cast<int>(allocation.gpus.size());
  index_[job] = jobs_.size();
  jobs_.push_back({job, expected_end, allocation});
  for (int gpu : allocation.gpus) owner_[gpu] = job;
}

void RunningSet::remove(std::size_t job) {
  const std::size_t pos = index_[job];
  const Allocation& allocation = jobs_[pos].allocation;
  for (int gpu : allocation.gpus) owner_[gpu] = kNone;
  state_.release(allocation);
  sampler_.touch(allocation);
  busy_gpus_ -= static_cast<int>(allocation.gpus.size());
  // The scheduler sees the running jobs in this order, so it is part of the results.
  jobs_[pos] = std::move(jobs_.back());
  index_[jobs_[pos].job] = pos;
  jobs_.pop_back();
  index_[job] = kNone;
}

void RunningSet::set_down(const std::vector<int>& gpus, bool down) {
  if (gpus.empty()) return;
  for (int gpu : gpus) state_.set_down(gpu, down);
  Allocation changed;
  changed.gpus = gpus;
  sampler_.touch(changed);
}

std::vector<std::size_t> RunningSet::owners(const std::vector<int>& gpus) const {
  std::vector<std::size_t> out;
  for (int gpu : gpus)
    if (owner_[gpu] != kNone) out.push_back(owner_[gpu]);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace nvlsim
