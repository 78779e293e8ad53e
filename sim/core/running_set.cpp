#include "sim/core/running_set.hpp"

#include <algorithm>
#include <utility>

namespace nvlsim {

RunningSet::RunningSet(const ClusterShape& shape, int shares_per_gpu, std::size_t jobs, StateSampler& sampler,
                       TrayGroups tray_groups)
    : state_(shape, shares_per_gpu), sampler_(sampler), running_(jobs, 0), owners_(shape.gpus()) {
  state_.index_groups(std::move(tray_groups));
}

void RunningSet::add(std::size_t job, double expected_end, const Allocation& allocation) {
  state_.apply(allocation);
  sampler_.touch(allocation);
  running_[job] = 1;
  ++count_;
  for (int gpu : allocation.gpus) owners_[gpu].push_back(job);
  replay_.started(state_, job, expected_end, allocation);
}

void RunningSet::remove(std::size_t job) {
  const Allocation& allocation = replay_.allocation(job);
  for (int gpu : allocation.gpus) std::erase(owners_[gpu], job);
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
  for (int gpu : gpus) out.insert(out.end(), owners_[gpu].begin(), owners_[gpu].end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace nvlsim
