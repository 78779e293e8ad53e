#include "schedulers/cons_tres_runs.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

namespace nvlsim::cons_tres {
namespace {

int length(const TrayRun& run) {
  return run.end_tray - run.first_tray;
}

}  // namespace

bool idle_runs_decide(const ClusterState& state, const JobRequest& request) {
  return request.shards == 0 && request.shape == RequestShape::nodes && request.cpus_per_gpu == 0 &&
         state.shape().cpus_per_tray > 0 && state.idle_trays_with_cpus_used() == 0;
}

std::optional<std::vector<int>> eval_idle_runs(const ClusterState& state, const JobRequest& request) {
  int need = request.gpus / state.shape().gpus_per_tray;
  std::vector<TrayRun> runs = state.idle_tray_runs();
  std::vector<int> trays;
  const auto take = [&](const TrayRun& run, int count) {
    for (int tray = run.first_tray; tray < run.first_tray + count; ++tray) trays.push_back(tray);
    need -= count;
  };
  // The first round in one scan, as most requests end there: the shortest run that holds them all.
  const TrayRun* shortest = nullptr;
  for (const TrayRun& run : runs)
    if (length(run) >= need && (shortest == nullptr || length(run) < length(*shortest))) shortest = &run;
  if (shortest != nullptr) {
    take(*shortest, need);
    return trays;
  }
  // Else the runs longest first, the first on ties: each round takes the next whole, until the rest of
  // the runs hold what is still needed; then the shortest of those that hold it, the first on ties.
  std::sort(runs.begin(), runs.end(), [](const TrayRun& a, const TrayRun& b) {
    return length(a) > length(b) || (length(a) == length(b) && a.first_tray < b.first_tray);
  });
  for (auto next = runs.begin(); next != runs.end(); ++next) {
    if (length(*next) < need) {
      take(*next, length(*next));
      continue;
    }
    const auto holding =
        std::partition_point(next, runs.end(), [&](const TrayRun& r) { return length(r) >= need; });
    const int fewest = length(*std::prev(holding));
    take(*std::partition_point(next, holding, [&](const TrayRun& r) { return length(r) > fewest; }), need);
    std::sort(trays.begin(), trays.end());
    return trays;
  }
  return std::nullopt;
}

void idle_offers(const ClusterState& state, const JobRequest& request, std::vector<NodeOffer>& out) {
  const int any_idle = state.first_tray_with_free(state.shape().gpus_per_tray);
  if (any_idle < 0) return;
  // What offer() gives an idle tray: all its cores and GPUs, weighed by the GPUs it gives this job.
  NodeOffer idle = *offer(state, any_idle, request, SlurmVersion::v22_05);  // no CPU share: one rule
  for (const TrayRun& run : state.idle_tray_runs())
    for (idle.tray = run.first_tray; idle.tray < run.end_tray; ++idle.tray) out.push_back(idle);
}

bool one_tray_may_decide(const JobRequest& request) {
  return request.shards == 0 && request.shape == RequestShape::gpus && request.cpus_per_gpu == 0 &&
         request.gpus >= 1;
}

std::optional<int> eval_one_tray(const ClusterState& state, const JobRequest& request) {
  if (request.gpus > state.shape().gpus_per_tray) return std::nullopt;
  const int cores = state.shape().cpus_per_tray;
  int best_cpus = std::numeric_limits<int>::max();
  int best_pick = -1;
  // A run's free cores are all of its trays' but those jobs hold, so only the trays with cores in use are
  // visited; the fewest free cores in a run are on one of them, or, when it has none, on its first tray.
  state.for_each_run_with_at_least(request.gpus, [&](int first, int end) {
    int run_cpus = (end - first) * cores;
    int pick = first;
    int pick_cpus = cores;
    state.for_each_tray_with_cores_used(first, end, [&](int tray) {
      const int cpus = state.free_cpus_in_tray(tray);
      run_cpus -= cores - cpus;
      if (cpus < pick_cpus) {
        pick_cpus = cpus;
        pick = tray;
      }
    });
    if (run_cpus < best_cpus) {
      best_cpus = run_cpus;
      best_pick = pick;
    }
  });
  if (best_pick < 0) return std::nullopt;
  return best_pick;
}

}  // namespace nvlsim::cons_tres
