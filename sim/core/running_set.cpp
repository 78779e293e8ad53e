#include "sim/core/running_set.hpp"

#include <algorithm>
#include <utility>

namespace nvlsim {

RunningSet::RunningSet(const ClusterShape& shape, const SharingConfig& sharing, std::size_t jobs,
                       StateSampler& sampler, TrayGroups tray_groups)
    : state_(shape, sharing.shares_per_gpu()),
      sampler_(sampler),
      running_(jobs, 0),
      shared_(sharing.mode != GpuSharing::none),
      sole_(shared_ ? 0 : shape.gpus(), kNoJob),
      owners_(shared_ ? shape.gpus() : 0) {
  state_.index_groups(std::move(tray_groups));
}

void RunningSet::add(std::size_t job, double expected_end, const Allocation& allocation) {
  state_.apply(allocation);
  sampler_.touch(allocation);
  running_[job] = 1;
  ++count_;
  if (shared_) {
    for (int gpu : allocation.gpus) owners_[gpu].push_back(job);
  } else {
    for (int gpu : allocation.gpus) sole_[gpu] = job;
  }
  replay_.started(state_, job, expected_end, allocation);
}

void RunningSet::remove(std::size_t job) {
  const Allocation& allocation = replay_.allocation(job);
  if (shared_) {
    for (int gpu : allocation.gpus) std::erase(owners_[gpu], job);
  } else {
    for (int gpu : allocation.gpus) sole_[gpu] = kNoJob;
  }
  state_.release(allocation);
  sampler_.touch(allocation);
  running_[job] = 0;
  --count_;
  replay_.ended(state_, job);  // last: the allocation is the replay's
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
  for (int gpu : gpus) {
    const auto jobs = owners_of(gpu);
    out.insert(out.end(), jobs.begin(), jobs.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace nvlsim
