#include "schedulers/per_gpu_policy.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace nvlsim {
namespace {

// Consecutive trays with at least one free GPU each: what cons_tres sees as contiguous nodes.
struct Run {
  int first_tray = 0;
  int end_tray = 0;  // one past the last
  int free = 0;
  int take = 0;  // GPUs this placement takes, filling trays in order
};

// Appends up to `count` free GPUs of the tray, lowest ids first; returns how many it appended.
int take_free_gpus(const ClusterState& state, int tray, int count, std::vector<int>& out) {
  const int first = state.shape().first_gpu_of_tray(tray);
  int taken = 0;
  for (int gpu = first; gpu < first + state.shape().gpus_per_tray && taken < count; ++gpu) {
    if (state.gpu_free(gpu)) {
      out.push_back(gpu);
      ++taken;
    }
  }
  return taken;
}

// Best fit: the fitting tray with the fewest free GPUs, lowest index on ties; -1 when none fits.
int tightest_tray(const ClusterState& state, int gpus) {
  int best = -1;
  int best_free = 0;
  for (int tray = 0; tray < state.shape().trays(); ++tray) {
    const int free = state.free_gpus_in_tray(tray);
    if (free >= gpus && (best < 0 || free < best_free)) {
      best = tray;
      best_free = free;
      if (free == gpus) break;  // nothing can fit tighter
    }
  }
  return best;
}

std::vector<Run> usable_runs(const ClusterState& state) {
  const int trays = state.shape().trays();
  std::vector<Run> runs;
  runs.reserve((trays + 1) / 2);  // runs are separated by unusable trays, so this never grows
  for (int tray = 0; tray < trays; ++tray) {
    const int free = state.free_gpus_in_tray(tray);
    if (free == 0) continue;
    if (runs.empty() || runs.back().end_tray != tray) runs.push_back({tray, tray, 0, 0});
    runs.back().end_tray = tray + 1;
    runs.back().free += free;
  }
  return runs;
}

// Among runs not yet taken, the one with the fewest free GPUs that still holds `gpus`, lowest index on
// ties; -1 when none does.
int tightest_run(std::span<const Run> runs, int gpus) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(runs.size()); ++i) {
    if (runs[i].take == 0 && runs[i].free >= gpus && (best < 0 || runs[i].free < runs[best].free)) best = i;
  }
  return best;
}

// Run indices by free GPUs descending, lowest index first on ties. A counting sort keeps this linear:
// free counts are bounded by the machine's GPU count.
std::vector<int> largest_first(std::span<const Run> runs) {
  int most = 0;
  for (const Run& run : runs) most = std::max(most, run.free);
  std::vector<int> next(most + 1, 0);  // per key (most - free): first slot of that key in the order
  for (const Run& run : runs) ++next[most - run.free];
  int slot = 0;
  for (int& n : next) slot += std::exchange(n, slot);
  std::vector<int> order(runs.size());
  for (int i = 0; i < static_cast<int>(runs.size()); ++i) order[next[most - runs[i].free]++] = i;
  return order;
}

// Decides how many GPUs each run gives. Needs the runs' total free to cover `gpus`.
void choose_from_runs(std::span<Run> runs, int gpus) {
  int last = tightest_run(runs, gpus);
  if (last < 0) {
    // No run holds it all: take the largest runs whole until one can hold the rest.
    for (int i : largest_first(runs)) {
      if (runs[i].free >= gpus) break;
      runs[i].take = runs[i].free;
      gpus -= runs[i].free;
    }
    last = tightest_run(runs, gpus);
  }
  runs[last].take = gpus;
}

}  // namespace

std::optional<Allocation> PerGpuPolicy::place(const ClusterState& state, const JobRequest& request) const {
  if (request.gpus < 1) throw std::invalid_argument("per-gpu: a request needs at least one GPU");
  if (state.free_gpus() < request.gpus) return std::nullopt;
  Allocation allocation;
  allocation.gpus.reserve(request.gpus);
  if (request.gpus <= state.shape().gpus_per_tray) {
    const int tray = tightest_tray(state, request.gpus);
    if (tray >= 0) {
      take_free_gpus(state, tray, request.gpus, allocation.gpus);
      return allocation;
    }
  }
  std::vector<Run> runs = usable_runs(state);
  choose_from_runs(runs, request.gpus);
  // Runs and their trays in index order, so the GPUs come out ascending.
  for (const Run& run : runs) {
    for (int tray = run.first_tray, left = run.take; left > 0; ++tray) {
      left -= take_free_gpus(state, tray, left, allocation.gpus);
    }
  }
  return allocation;
}

std::unique_ptr<PlacementPolicy> make_per_gpu_policy(const PolicySpec& spec, const PolicyContext&) {
  check_param_keys(spec, {});
  return std::make_unique<PerGpuPolicy>();
}

}  // namespace nvlsim
