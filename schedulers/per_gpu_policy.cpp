#include "schedulers/per_gpu_policy.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace nvlsim {
namespace {

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

// Best fit: the fitting tray with the fewest free GPUs, lowest index on ties; -1 when none fits. The
// state indexes trays by free count, so this looks at no tray that does not fit.
int tightest_tray(const ClusterState& state, int gpus) {
  for (int free = gpus; free <= state.shape().gpus_per_tray; ++free) {
    const int tray = state.first_tray_with_free(free);
    if (tray >= 0) return tray;
  }
  return -1;
}

// Runs of usable trays (TrayRun) are what cons_tres sees as contiguous nodes; take[i] is what a placement
// takes of run i, filling its trays in order. Among runs not yet taken, the one with the fewest free GPUs
// that still holds `gpus`, lowest index on ties; -1 when none does.
int tightest_run(std::span<const TrayRun> runs, std::span<const int> take, int gpus) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(runs.size()); ++i) {
    if (take[i] == 0 && runs[i].free >= gpus && (best < 0 || runs[i].free < runs[best].free)) best = i;
  }
  return best;
}

// Run indices by free GPUs descending, lowest index first on ties. A counting sort keeps this linear:
// free counts are bounded by the machine's GPU count.
std::vector<int> largest_first(std::span<const TrayRun> runs) {
  int most = 0;
  for (const TrayRun& run : runs) most = std::max(most, run.free);
  std::vector<int> next(most + 1, 0);  // per key (most - free): first slot of that key in the order
  for (const TrayRun& run : runs) ++next[most - run.free];
  int slot = 0;
  for (int& n : next) slot += std::exchange(n, slot);
  std::vector<int> order(runs.size());
  for (int i = 0; i < static_cast<int>(runs.size()); ++i) order[next[most - runs[i].free]++] = i;
  return order;
}

// Decides how many GPUs each run gives. Needs the runs' total free to cover `gpus`.
std::vector<int> choose_from_runs(std::span<const TrayRun> runs, int gpus) {
  std::vector<int> take(runs.size(), 0);
  int last = tightest_run(runs, take, gpus);
  if (last < 0) {
    // No run holds it all: take the largest runs whole until one can hold the rest.
    for (int i : largest_first(runs)) {
      if (runs[i].free >= gpus) break;
      take[i] = runs[i].free;
      gpus -= runs[i].free;
    }
    last = tightest_run(runs, take, gpus);
  }
  take[last] = gpus;
  return take;
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
  const std::vector<TrayRun> runs = state.free_tray_runs();
  const std::vector<int> take = choose_from_runs(runs, request.gpus);
  // Runs and their trays in index order, so the GPUs come out ascending.
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (int tray = runs[i].first_tray, left = take[i]; left > 0; ++tray) {
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
