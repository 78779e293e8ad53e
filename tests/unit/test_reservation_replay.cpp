#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "schedulers/easy_backfill.hpp"
#include "schedulers/policy_registry.hpp"
#include "schedulers/reservation_replay.hpp"

using nvlsim::Allocation;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::QueuedJob;
using nvlsim::Reservation;
using nvlsim::ReservationReplay;
using nvlsim::RunningJob;
using nvlsim::StartDecision;

namespace {

constexpr ClusterShape kFourRacks{4, 18, 4};

bool same(const std::optional<Reservation>& a, const std::optional<Reservation>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->start == b->start && a->allocation->gpus == b->allocation->gpus &&
                a->allocation->held_trays == b->allocation->held_trays);
}

bool same(const std::vector<StartDecision>& a, const std::vector<StartDecision>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const StartDecision& x, const StartDecision& y) {
                      return x.job == y.job && x.allocation.gpus == y.allocation.gpus &&
                             x.allocation.held_trays == y.allocation.held_trays;
                    });
}

// A machine evolving as the driver moves it: jobs arrive (those `policy` could not place even on the empty
// machine are rejected, as the run rejects them), start by backfill, end early or at their limit, and GPUs
// fail (killing and requeueing the jobs on them) and come back.
class Machine {
 public:
  Machine(std::uint64_t seed, const nvlsim::PlacementPolicy& policy)
      : rng_(seed), state_(kFourRacks), policy_(policy) {}

  void step() {
    now_ += static_cast<double>(rng_() % 50);
    for (int k = static_cast<int>(rng_() % 3); k > 0; --k) {
      static constexpr int kSizes[] = {1, 2, 4, 6, 8, 10, 16, 32, 36, 64, 70, 72, 100, 128, 144};
      const int gpus = kSizes[rng_() % std::size(kSizes)];
      const double limit = static_cast<double>(50 + rng_() % 400);
      if (policy_.place(ClusterState(kFourRacks), request(gpus)))
        queue_.push_back({next_job_++, request(gpus), limit});
    }
    // Jobs end at their limit or, one in three, early.
    for (std::size_t i = 0; i < running_.size();) {
      const bool early = rng_() % 3 == 0 && rng_() % 4 == 0;
      if (running_[i].expected_end <= now_ || early) {
        end(i);
      } else {
        ++i;
      }
    }
    if (!down_.empty() && rng_() % 4 == 0) {
      state_.set_down(down_.front(), false);
      down_.erase(down_.begin());
    }
    if (rng_() % 20 == 0) fail(static_cast<int>(rng_() % kFourRacks.gpus()));
  }

  // The replay is told of every start and end from now on, as the driver tells its own.
  void tell(ReservationReplay& replay) { told_.push_back(&replay); }

  void start(const std::vector<StartDecision>& decisions) {
    for (const StartDecision& d : decisions) {
      const auto it =
          std::find_if(queue_.begin(), queue_.end(), [&](const QueuedJob& q) { return q.job == d.job; });
      state_.apply(d.allocation);
      running_.push_back({d.job, now_ + it->time_limit, d.allocation});
      for (ReservationReplay* replay : told_)
        replay->started(state_, d.job, now_ + it->time_limit, d.allocation);
      queue_.erase(it);
    }
  }

  // A replay told of the running jobs only now.
  void tell_running(ReservationReplay& replay) const {
    for (const RunningJob& job : running_) replay.started(state_, job.job, job.expected_end, job.allocation);
  }

  double now() const { return now_; }
  const ClusterState& state() const { return state_; }
  ClusterState& state() { return state_; }
  const std::vector<QueuedJob>& queue() const { return queue_; }
  const std::vector<RunningJob>& running() const { return running_; }

 private:
  // As a run shapes jobs by default: whole trays for multiples of a tray's GPUs, else a GPU count.
  static nvlsim::JobRequest request(int gpus) {
    return nvlsim::shape_request(gpus, nvlsim::RequestShaping::auto_, kFourRacks.gpus_per_tray, 0);
  }

  // The job on the GPU is killed and requeued at the head, as the driver does.
  void fail(int gpu) {
    if (state_.gpu_down(gpu)) return;
    for (std::size_t i = 0; i < running_.size(); ++i) {
      const auto& gpus = running_[i].allocation.gpus;
      if (std::find(gpus.begin(), gpus.end(), gpu) != gpus.end()) {
        queue_.insert(queue_.begin(), {running_[i].job, request(static_cast<int>(gpus.size())), 100});
        end(i);
        break;
      }
    }
    state_.set_down(gpu, true);
    down_.push_back(gpu);
  }

  void end(std::size_t i) {
    state_.release(running_[i].allocation);
    for (ReservationReplay* replay : told_) replay->ended(state_, running_[i].job);
    running_[i] = std::move(running_.back());  // the driver's order: swap with the last
    running_.pop_back();
  }

  std::mt19937_64 rng_;
  ClusterState state_;
  const nvlsim::PlacementPolicy& policy_;
  double now_ = 0;
  std::size_t next_job_ = 0;
  std::vector<QueuedJob> queue_;
  std::vector<RunningJob> running_;
  std::vector<int> down_;
  std::vector<ReservationReplay*> told_;
};

Allocation gpu_range(int first, int count) {
  Allocation allocation;
  for (int gpu = first; gpu < first + count; ++gpu) allocation.gpus.push_back(gpu);
  return allocation;
}

// A per-gpu machine whose starts and ends a test tells the replay one by one.
class ToldByHand {
 public:
  void start(std::size_t job, double end, const Allocation& allocation) {
    state_.apply(allocation);
    replay_.started(state_, job, end, allocation);
  }
  void end(std::size_t job, const Allocation& allocation) {
    state_.release(allocation);
    replay_.ended(state_, job);
  }
  double reserved_start(const nvlsim::JobRequest& head) {
    const auto reserved = replay_.reserve(0, state_, head, *policy_);
    REQUIRE(reserved.has_value());
    return reserved->start;
  }

 private:
  std::unique_ptr<nvlsim::PlacementPolicy> policy_ =
      nvlsim::make_policy("per-gpu", nvlsim::PolicyContext{kFourRacks});
  ClusterState state_{kFourRacks};
  ReservationReplay replay_;
};

}  // namespace

// The replay kept from pass to pass must answer as one that replays the running jobs from the present.
TEST_CASE("a reservation carried between passes equals one replayed from the present", "[easy_backfill]") {
  const nvlsim::PolicyContext context{kFourRacks};
  // Every registered policy with its defaults, and the variants whose reservations differ.
  std::vector<std::string> specs = nvlsim::policy_names();
  for (const char* variant : {"block:min_block_nodes=16", "sub-block:segment=9", "sub-block:spread=1"})
    specs.emplace_back(variant);
  for (const std::string& spec : specs) {
    INFO(spec);
    const auto policy = nvlsim::make_policy(spec, context);
    Machine machine(5, *policy);
    ReservationReplay carried;       // asked about the queue's head at every step
    ReservationReplay in_scheduler;  // the one easy_backfill keeps, told of the pass's starts by the pass too
    machine.tell(carried);
    machine.tell(in_scheduler);
    int reservations = 0;
    int started = 0;
    for (int step = 0; step < 1500; ++step) {
      INFO("step " << step);
      machine.step();
      if (!machine.queue().empty()) {
        const nvlsim::JobRequest head = machine.queue().front().request;
        const auto kept = carried.reserve(machine.now(), machine.state(), head, *policy);
        ReservationReplay from_present;  // outlives the reservation, which points into it
        machine.tell_running(from_present);
        const auto fresh = from_present.reserve(machine.now(), machine.state(), head, *policy);
        REQUIRE(same(kept, fresh));
        reservations += kept.has_value();
      }
      const auto queue = machine.queue();
      const auto with = nvlsim::easy_backfill(machine.now(), machine.state(), queue, in_scheduler, *policy);
      const auto without =
          nvlsim::easy_backfill(machine.now(), machine.state(), queue, machine.running(), *policy);
      REQUIRE(same(with, without));
      started += static_cast<int>(with.size());
      machine.start(with);
    }
    // The comparison saw the cases it is about.
    CHECK(reservations > 50);
    CHECK(started > 400);
  }
}

TEST_CASE("a reservation replay refuses a state that does not hold the running jobs", "[easy_backfill]") {
  const auto policy = nvlsim::make_policy("per-gpu", nvlsim::PolicyContext{kFourRacks});
  ClusterState state(kFourRacks);
  const Allocation a{{0, 1, 2, 3}, {}};
  const Allocation b{{4, 5}, {}};
  ReservationReplay replay;
  state.apply(a);
  replay.started(state, 0, 10, a);
  state.apply(b);
  replay.started(state, 1, 20, b);
  const nvlsim::JobRequest head{kFourRacks.gpus() - 2};
  const auto first = replay.reserve(0, state, head, *policy);
  REQUIRE(first.has_value());
  CHECK(first->start == 10);
  CHECK_THROWS_AS(replay.ended(state, 2), std::logic_error);  // never started
  CHECK_THROWS_AS(replay.allocation(2), std::logic_error);
  CHECK(replay.allocation(1) == b);
  // Job 1 ended, but the state still holds it.
  replay.ended(state, 1);
  CHECK_THROWS_AS(replay.reserve(0, state, head, *policy), std::logic_error);
}

// A pass tells the replay its starts, and the caller tells them again when it starts them: the second
// telling must change nothing, while a start of the same job with another end replaces its entry.
TEST_CASE("a start told twice is one start and a start told anew replaces it", "[easy_backfill]") {
  const auto policy = nvlsim::make_policy("per-gpu", nvlsim::PolicyContext{kFourRacks});
  ClusterState state(kFourRacks);
  const Allocation a{{0, 1, 2, 3}, {}};
  ReservationReplay replay;
  state.apply(a);
  replay.started(state, 0, 10, a);
  replay.started(state, 0, 10, a);
  const nvlsim::JobRequest head{kFourRacks.gpus() - 2};
  REQUIRE(replay.reserve(0, state, head, *policy).has_value());
  replay.started(state, 0, 30, a);
  const auto moved = replay.reserve(0, state, head, *policy);
  REQUIRE(moved.has_value());
  CHECK(moved->start == 30);
  state.release(a);
  replay.ended(state, 0);
  CHECK_THROWS_AS(replay.ended(state, 0), std::logic_error);
  CHECK_FALSE(replay.reserve(0, state, {kFourRacks.gpus() + 1}, *policy).has_value());
}

// A walk asks the state before its last release again only when that state may fit now: for another
// head, or after a job ending later than the reservation gave its GPUs back. A start only takes room, so
// after one the earlier answer "does not fit there" stands.
TEST_CASE("a reservation steps back when the head changes or a later job ends early", "[easy_backfill]") {
  ToldByHand told;
  // 288 GPUs: 100 end at 10, 60 at 20, 120 at 50; 8 free.
  const Allocation a = gpu_range(0, 100), b = gpu_range(100, 60), late = gpu_range(160, 120);
  told.start(0, 10, a);
  told.start(1, 20, b);
  told.start(2, 50, late);
  const nvlsim::JobRequest large{165}, small{50};
  CHECK(told.reserved_start(large) == 20);  // 108 GPUs once `a` ends, 168 once `b` ends
  CHECK(told.reserved_start(small) == 10);
  CHECK(told.reserved_start(large) == 20);
  // A start that ends after the reservation takes room: 164 GPUs once `b` ends, so it must end too.
  const Allocation d = gpu_range(280, 4);
  told.start(3, 40, d);
  CHECK(told.reserved_start(large) == 40);
  told.end(3, d);
  CHECK(told.reserved_start(large) == 20);
  // `late` ends early: 228 GPUs once `a` ends.
  told.end(2, late);
  CHECK(told.reserved_start(large) == 10);
}

// A walk tells from counts that the state before its last release is short of GPUs, by what that entry's
// release freed. An entry that joined the released ones at its start was never released: a job started
// again under its index (requeued after a failure) must not be judged by what its earlier run freed.
TEST_CASE("a reservation judges a restarted job by its own GPUs", "[easy_backfill]") {
  ToldByHand told;
  // 288 GPUs: 100 end at 10, 80 at 30, 100 at 40; 8 free.
  const Allocation a = gpu_range(0, 100), b = gpu_range(100, 100), first_run = gpu_range(200, 80),
                   second_run = gpu_range(200, 8);
  told.start(0, 10, a);
  told.start(1, 40, b);
  told.start(2, 30, first_run);
  const nvlsim::JobRequest head{210};
  CHECK(told.reserved_start(head) == 40);  // 108, then 188, then 288 GPUs
  told.end(2, first_run);
  told.start(2, 20, second_run);  // ends before the reservation: it joins the released jobs
  told.end(1, b);
  CHECK(told.reserved_start(head) == 10);  // 180 GPUs now, 280 once `a` ends
}
