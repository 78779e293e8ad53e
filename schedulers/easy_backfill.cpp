#include "schedulers/easy_backfill.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>

namespace nvlsim {
namespace {

// When and on what the head of the queue is promised to start.
struct Reservation {
  double start = 0;  // the shadow time
  Allocation allocation;
};

// Replays running jobs ending in order of expected end (ties by job index) on a copy of the state until
// the head fits. nullopt when it does not fit even on the emptied machine.
std::optional<Reservation> reserve(double now, ClusterState future, std::span<const RunningJob> running,
                                   std::span<const StartDecision> started,
                                   std::span<const QueuedJob> started_jobs, const QueuedJob& head,
                                   const PlacementPolicy& policy) {
  struct Ending {
    double time;
    std::size_t job;
    const Allocation* allocation;
  };
  std::vector<Ending> endings;
  endings.reserve(running.size() + started.size());
  for (const RunningJob& job : running) endings.push_back({job.expected_end, job.job, &job.allocation});
  for (std::size_t i = 0; i < started.size(); ++i) {
    endings.push_back({now + started_jobs[i].time_limit, started[i].job, &started[i].allocation});
  }
  std::sort(endings.begin(), endings.end(), [](const Ending& a, const Ending& b) {
    return std::tie(a.time, a.job) < std::tie(b.time, b.job);
  });
  for (const Ending& ending : endings) {
    future.release(*ending.allocation);
    if (future.free_gpus() < head.gpus) continue;  // no policy places more GPUs than are free
    if (auto placed = policy.place(future, {head.gpus})) {
      // A job overrunning its limit is still expected to end; not before now, though.
      return Reservation{std::max(now, ending.time), std::move(*placed)};
    }
  }
  return std::nullopt;
}

// What a reservation uses, marked per GPU and tray so testing a candidate costs only the candidate's size.
class ReservedResources {
 public:
  ReservedResources(const ClusterShape& shape, const Allocation& reserved)
      : shape_(shape), gpus_(shape.gpus(), 0), trays_(shape.trays(), 0), held_(shape.trays(), 0) {
    for (int gpu : reserved.gpus) {
      gpus_[gpu] = 1;
      trays_[shape.tray_of_gpu(gpu)] = 1;
    }
    for (int tray : reserved.held_trays) trays_[tray] = held_[tray] = 1;
  }

  // Shares a GPU, holds a tray the reservation uses, or uses a tray the reservation holds.
  bool conflicts(const Allocation& candidate) const {
    const auto gpu_conflicts = [&](int gpu) { return gpus_[gpu] || held_[shape_.tray_of_gpu(gpu)]; };
    return std::any_of(candidate.gpus.begin(), candidate.gpus.end(), gpu_conflicts) ||
           std::any_of(candidate.held_trays.begin(), candidate.held_trays.end(),
                       [&](int tray) { return trays_[tray] != 0; });
  }

 private:
  ClusterShape shape_;
  std::vector<std::uint8_t> gpus_;
  std::vector<std::uint8_t> trays_;  // holding a GPU's tray or held
  std::vector<std::uint8_t> held_;
};

}  // namespace

std::vector<StartDecision> easy_backfill(double now, const ClusterState& state,
                                         std::span<const QueuedJob> queue,
                                         std::span<const RunningJob> running, const PlacementPolicy& policy,
                                         const BackfillConfig& config, BackfillReport* report) {
  ClusterState working = state;
  std::vector<StartDecision> started;
  bool blocked = false;
  const auto try_start = [&](const QueuedJob& job, const auto& allowed) {
    if (job.gpus > working.free_gpus()) {
      const int idle = working.shape().gpus() - working.busy_gpus() - working.down_gpus();
      blocked = blocked || job.gpus <= idle;
      return false;
    }
    std::optional<Allocation> placed = policy.place(working, {job.gpus});
    blocked = blocked || !placed;
    if (!placed || !allowed(*placed)) return false;
    working.apply(*placed);
    started.push_back({job.job, std::move(*placed)});
    return true;
  };

  const auto done = [&] {
    if (report != nullptr) report->placement_blocked = blocked;
    return started;
  };
  std::size_t head = 0;
  while (head < queue.size() && try_start(queue[head], [](const Allocation&) { return true; })) ++head;
  if (head == queue.size() || !config.backfill) return done();

  const std::optional<Reservation> reservation =
      reserve(now, working, running, started, queue.first(head), queue[head], policy);
  if (!reservation) return done();  // the head never fits, so nothing may be promised past it
  const ReservedResources reserved(state.shape(), reservation->allocation);
  const std::size_t tested = std::min(config.max_job_test, queue.size() - head - 1);
  for (const QueuedJob& job : queue.subspan(head + 1, tested)) {
    const bool ends_in_time = now + job.time_limit <= reservation->start;
    try_start(job, [&](const Allocation& placed) { return ends_in_time || !reserved.conflicts(placed); });
  }
  return done();
}

}  // namespace nvlsim
