#include "schedulers/easy_backfill.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace nvlsim {
namespace {

// What the policy placed for each request since the state the pass reads last changed. place() is a function
// of the state and the request, and a pass asks the same few requests over and over (a queue of
// thousands holds a dozen sizes, and up to max_job_test of them are tried), so each is placed once per
// state: the pass's cost no longer grows with the queue times the machine.
class PlacementMemo {
 public:
  std::optional<Allocation>& place(const PlacementPolicy& policy, const ClusterState& state,
                                   const JobRequest& request) {
    for (auto& [asked, placed] : entries_)
      if (asked == request) return placed;
    return entries_
        .emplace_back(request, policy.may_fit(state, request) ? policy.place(state, request) : std::nullopt)
        .second;
  }
  void clear() { entries_.clear(); }

 private:
  std::vector<std::pair<JobRequest, std::optional<Allocation>>> entries_;
};

// The jobs a pass starts. Each start is applied to the caller's state as the pass decides it, so later
// jobs see it, and released again, last first, when the decisions are taken or the pass leaves by an
// exception: the caller's state comes back as it was. The running jobs' replay is told each start and
// keeps it, as the caller starts every decision and tells it again. Copying the state instead cost the
// machine's size at every pass that started a job, 12% of a 1,000-rack replay.
class Starts {
 public:
  Starts(ClusterState& state, ReservationReplay& running) : state_(state), running_(running) {}
  ~Starts() { release_all(); }
  Starts(const Starts&) = delete;
  Starts& operator=(const Starts&) = delete;

  void add(std::size_t job, Allocation allocation, double expected_end) {
    state_.apply(allocation);
    ++applied_;
    running_.started(state_, job, expected_end, allocation);
    decided_.push_back({job, std::move(allocation)});
  }
  std::vector<StartDecision> take() {
    release_all();
    return std::move(decided_);
  }

 private:
  void release_all() {
    for (; applied_ > 0; --applied_) state_.release(decided_[applied_ - 1].allocation);
  }
  ClusterState& state_;
  ReservationReplay& running_;
  std::vector<StartDecision> decided_;
  std::size_t applied_ = 0;
};

}  // namespace

std::vector<StartDecision> easy_backfill(double now, ClusterState& state, std::span<const QueuedJob> queue,
                                         ReservationReplay& running, const PlacementPolicy& policy,
                                         const BackfillConfig& config, BackfillReport* report) {
  PlacementMemo memo;
  Starts started(state, running);
  const ClusterState& current = state;  // what the pass reads: the machine with its starts so far
  bool blocked = false;
  const auto try_start = [&](const QueuedJob& job, const auto& allowed) {
    const int gpus = job.request.gpus;
    // A share request may go to a GPU already holding shares, which counts busy: only the policy can say.
    if (job.request.shards == 0 && gpus > current.free_gpus()) {
      const int idle = current.shape().gpus() - current.busy_gpus() - current.down_gpus();
      blocked = blocked || gpus <= idle;
      return false;
    }
    std::optional<Allocation>& placed = memo.place(policy, current, job.request);
    blocked = blocked || !placed;
    if (!placed || !allowed(*placed)) return false;
    started.add(job.job, std::move(*placed), now + job.time_limit);
    memo.clear();
    return true;
  };

  const auto done = [&] {
    if (report != nullptr) report->placement_blocked = blocked;
    return started.take();
  };
  std::size_t head = 0;
  while (head < queue.size() && try_start(queue[head], [](const Allocation&) { return true; })) ++head;
  if (head == queue.size() || !config.backfill) return done();

  // The reservation goes to the first examined job that could not start and that fits once running jobs
  // end. One that fits not even on the emptied machine (down parts keep it out) is passed over, as Slurm's
  // backfill passes over a job no nodes can run now; while every candidate so far is such a job, nothing
  // is promised and jobs past them start if they fit. The reservation matters only to a job that can be
  // placed now, so it is made when the first such job asks.
  std::vector<std::size_t> waiting{head};  // examined jobs that did not start: the candidates
  std::size_t candidate = 0;               // waiting[0, candidate) fit not even on the emptied machine
  std::optional<Reservation> reservation;
  const auto promise = [&]() -> const Reservation* {
    while (!reservation && candidate < waiting.size()) {
      reservation = running.reserve(now, current, queue[waiting[candidate]].request, policy);
      if (!reservation) ++candidate;
    }
    return reservation ? &*reservation : nullptr;
  };
  const std::size_t end = head + 1 + std::min(config.max_job_test, queue.size() - head - 1);
  // With no GPU free (within a pass they only get fewer) no whole-GPU job can start: the rest of the pass
  // only notes whether one of them fits the idle GPUs, in one tight scan instead of the loop. A share
  // request may still go to a GPU that holds shares, so the scan stops there and the loop goes on past it.
  std::size_t scan_from = head + 1;
  const auto nothing_can_start_from = [&](std::size_t from) {
    int fewest = current.shape().gpus() + 1;
    for (std::size_t k = from; k < end; ++k) {
      if (queue[k].request.shards > 0) {
        scan_from = k + 1;
        return false;
      }
      fewest = std::min(fewest, queue[k].request.gpus);
    }
    blocked = blocked || fewest <= current.shape().gpus() - current.busy_gpus() - current.down_gpus();
    return true;
  };
  for (std::size_t i = head + 1; i < end; ++i) {
    if (current.free_gpus() == 0 && i >= scan_from && nothing_can_start_from(i)) break;
    const QueuedJob& job = queue[i];
    const bool began = try_start(job, [&](const Allocation& placed) {
      const Reservation* promised = promise();
      // A job without a limit never ends before the promise, even one made for the end of time.
      return promised == nullptr ||
             (std::isfinite(job.time_limit) && now + job.time_limit <= promised->start) ||
             !running.conflicts(placed);
    });
    if (!began && !reservation) waiting.push_back(i);
  }
  return done();
}

std::vector<StartDecision> easy_backfill(double now, ClusterState& state, std::span<const QueuedJob> queue,
                                         std::span<const RunningJob> running, const PlacementPolicy& policy,
                                         const BackfillConfig& config, BackfillReport* report) {
  ReservationReplay replay;
  for (const RunningJob& job : running) replay.started(state, job.job, job.expected_end, job.allocation);
  return easy_backfill(now, state, queue, replay, policy, config, report);
}

}  // namespace nvlsim
