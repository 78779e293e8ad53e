#include "tests/bench/pass_cost.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>
#include <random>
#include <stdexcept>

#include "schedulers/easy_backfill.hpp"
#include "schedulers/policy_registry.hpp"
#include "schedulers/reservation_replay.hpp"
#include "tests/bench/seeded_machine.hpp"

namespace nvlsim {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

bool same_decisions(const std::vector<StartDecision>& a, const std::vector<StartDecision>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const StartDecision& x, const StartDecision& y) {
                      return x.job == y.job && x.allocation.gpus == y.allocation.gpus &&
                             x.allocation.held_trays == y.allocation.held_trays;
                    });
}

// The machine and queue as the simulator holds them at a typical backfill pass: the pass before this one
// started what it could, new jobs arrived at the back, and a running job ended before its time limit
// (most passes follow such an end, and it moves the reservation's future).
struct PassInput {
  ClusterState state;
  std::vector<RunningJob> running;
  std::vector<QueuedJob> queue;
  ReservationReplay carried;
};

PassInput before_pass(const SeededMachine& machine, const PlacementPolicy& policy, int queue_length,
                      std::mt19937_64& rng) {
  PassInput in{machine.state, machine.running, {}, {}};
  for (const RunningJob& job : in.running)
    in.carried.started(in.state, job.job, job.expected_end, job.allocation);
  const auto length = static_cast<std::size_t>(queue_length);
  in.queue.assign(machine.waiting.begin(), machine.waiting.begin() + queue_length);
  std::size_t arrived = length;
  const auto starts = easy_backfill(0, in.state, in.queue, in.carried, policy);
  for (const StartDecision& d : starts) {
    const auto it =
        std::find_if(in.queue.begin(), in.queue.end(), [&](const QueuedJob& q) { return q.job == d.job; });
    in.state.apply(d.allocation);
    in.running.push_back({d.job, it->time_limit, d.allocation});
    in.carried.started(in.state, d.job, it->time_limit, d.allocation);
    in.queue.erase(it);
  }
  while (in.queue.size() < length) in.queue.push_back(machine.waiting[arrived++]);
  // The future as some earlier pass left it: the pass before may have had no job to backfill, and so
  // made no reservation, but in a replay one was made at some pass and is carried from there.
  in.carried.reserve(0, in.state, in.queue.front().request, policy);
  if (!in.running.empty()) {
    std::uniform_int_distribution<std::size_t> pick(0, in.running.size() - 1);
    const std::size_t ended = pick(rng);
    in.state.release(in.running[ended].allocation);
    in.carried.ended(in.state, in.running[ended].job);
    in.running[ended] = std::move(in.running.back());
    in.running.pop_back();
  }
  return in;
}

}  // namespace

std::vector<PassCost> measure_passes(int racks, const std::string& spec, const std::vector<int>& queues,
                                     int machines, int repeats) {
  const PolicyContext context{ClusterShape{racks, 18, 4}};
  const auto policy = make_policy(spec, context);
  const int longest = *std::max_element(queues.begin(), queues.end());
  std::vector<PassCost> rows;
  for (int q : queues) rows.push_back({racks, spec, q});
  const double gpus = context.shape.gpus();
  for (int m = 0; m < machines; ++m) {
    const auto seed = static_cast<std::uint64_t>(m + 1);
    // Twice the longest queue: the pass before may start up to a queue's length, and arrivals replace them.
    const SeededMachine machine = seeded_machine(context.shape, *policy, 2 * longest, seed);
    std::mt19937_64 rng(seed);
    for (PassCost& row : rows) {
      PassInput in = before_pass(machine, *policy, row.queue, rng);
      // The fastest of the repeats: a slower one was interrupted by other work on the machine.
      double carried_ns = std::numeric_limits<double>::infinity();
      double fresh_ns = carried_ns;
      std::size_t started = 0;
      for (int r = 0; r < repeats; ++r) {
        ReservationReplay replay = in.carried;
        auto t0 = Clock::now();
        const auto carried = easy_backfill(0, in.state, in.queue, replay, *policy);
        carried_ns = std::min(carried_ns, 1e9 * seconds_since(t0));
        t0 = Clock::now();
        const auto fresh = easy_backfill(0, in.state, in.queue, in.running, *policy);
        fresh_ns = std::min(fresh_ns, 1e9 * seconds_since(t0));
        if (!same_decisions(carried, fresh))
          throw std::logic_error(spec + ": the carried reservation changed a pass's decisions");
        started = carried.size();
      }
      row.carried_ns += carried_ns;
      row.fresh_ns += fresh_ns;
      row.started += static_cast<double>(started);
      row.free += in.state.free_gpus() / gpus;
      ++row.passes;
    }
  }
  for (PassCost& row : rows) {
    row.free /= row.passes;
    row.started /= row.passes;
    row.carried_ns /= row.passes;
    row.fresh_ns /= row.passes;
  }
  return rows;
}

}  // namespace nvlsim
