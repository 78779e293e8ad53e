#include <catch2/catch.hpp>

#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "schedulers/easy_backfill.hpp"
#include "schedulers/per_gpu_policy.hpp"

using nvlsim::Allocation;
using nvlsim::BackfillConfig;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::JobRequest;
using nvlsim::PerGpuPolicy;
using nvlsim::PlacementPolicy;
using nvlsim::QueuedJob;
using nvlsim::RunningJob;
using nvlsim::StartDecision;

namespace {

// One small rack: trays 0..3, GPUs 0..15.
constexpr ClusterShape kFourTrays{1, 4, 4};

std::vector<int> ids(int first, int end) {
  std::vector<int> result(end - first);
  std::iota(result.begin(), result.end(), first);
  return result;
}

// Starts a job on the state and returns it as running.
RunningJob run(ClusterState& state, std::size_t job, double expected_end, std::vector<int> gpus) {
  RunningJob running{job, expected_end, Allocation{std::move(gpus), {}}};
  state.apply(running.allocation);
  return running;
}

using Started = std::vector<std::pair<std::size_t, std::vector<int>>>;

Started started(const std::vector<StartDecision>& decisions) {
  Started result;
  for (const StartDecision& decision : decisions) result.emplace_back(decision.job, decision.allocation.gpus);
  return result;
}

// per-gpu, except that jobs of `holding` GPUs or more (or of `holding` GPUs exactly, when `only`) close
// the trays they use: lets a test see held trays.
class HoldingPolicy final : public PlacementPolicy {
 public:
  explicit HoldingPolicy(int holding = 2, bool only = false) : holding_(holding), only_(only) {}
  const std::string& name() const override { return name_; }
  std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const override {
    auto allocation = PerGpuPolicy{nvlsim::SlurmVersion::v22_05}.place(state, request);
    const bool holds = only_ ? request.gpus == holding_ : request.gpus >= holding_;
    if (allocation && holds) {
      for (int gpu : allocation->gpus) {
        const int tray = state.shape().tray_of_gpu(gpu);
        if (allocation->held_trays.empty() || allocation->held_trays.back() != tray) {
          allocation->held_trays.push_back(tray);
        }
      }
    }
    return allocation;
  }

 private:
  std::string name_ = "holding";
  int holding_;
  bool only_;
};

const PerGpuPolicy kPerGpu{nvlsim::SlurmVersion::v22_05};

}  // namespace

TEST_CASE("backfill starts a job that ends by the shadow time, even on reserved GPUs", "[easy_backfill]") {
  ClusterState state(kFourTrays);
  // Job 0 holds trays 1..3 until t=100; tray 0 (GPUs 0..3) is free.
  const std::vector<RunningJob> running = {run(state, 0, 100, ids(4, 16))};
  // Job 1 (8 GPUs) does not fit in 4 and becomes the head. When job 0 ends at 100 the machine is empty
  // and per-gpu gives it trays 0..1: shadow time 100, reserved GPUs 0..7.
  // Job 2 (4 GPUs) fits now on tray 0, inside the reservation, but ends by 100 (the limit is inclusive).
  const double limit = GENERATE(50.0, 100.0);
  const std::vector<QueuedJob> queue = {{1, {8}, 10}, {2, {4}, limit}};
  CHECK(started(easy_backfill(0, state, queue, running, kPerGpu)) == Started{{2, ids(0, 4)}});
}

TEST_CASE("backfill does not start a job that would delay the head", "[easy_backfill]") {
  ClusterState state(kFourTrays);
  const std::vector<RunningJob> running = {run(state, 0, 100, ids(4, 16))};
  // As above: head job 1 reserves GPUs 0..7 from t=100. Job 2 would sit on GPUs 0..3 until 150, so it
  // stays queued; job 3 behind it ends at 60 and takes those GPUs instead.
  const std::vector<QueuedJob> queue = {{1, {8}, 10}, {2, {4}, 150}, {3, {4}, 60}};
  CHECK(started(easy_backfill(0, state, queue, running, kPerGpu)) == Started{{3, ids(0, 4)}});
}

TEST_CASE("backfill starts a long job that uses nothing reserved", "[easy_backfill]") {
  ClusterState state(kFourTrays);
  // Job 1 on tray 2 until 200, job 0 on trays 0..1 until 100; tray 3 (GPUs 12..15) is free. Listed out of
  // end order on purpose: the reservation must replay ends in time order.
  const std::vector<RunningJob> running = {run(state, 1, 200, ids(8, 12)), run(state, 0, 100, ids(0, 8))};
  // Head job 2 (8 GPUs): when job 0 ends at 100, trays 0..1 (8) and 3 (4) are free runs; the tightest that
  // holds 8 is trays 0..1: reserved GPUs 0..7. (Replaying job 1 first would reserve 8..15 at 200.)
  // Job 3 fits now on tray 3 and runs far past 100, but touches nothing reserved.
  const std::vector<QueuedJob> queue = {{2, {8}, 10}, {3, {4}, 1000}};
  CHECK(started(easy_backfill(0, state, queue, running, kPerGpu)) == Started{{3, ids(12, 16)}});
}

TEST_CASE("jobs start in queue order while they fit", "[easy_backfill]") {
  ClusterState state(kFourTrays);
  // Job 5 (4) takes tray 0 (all trays tie, lowest first); job 3 (8) takes trays 1..2 from the run 1..3;
  // job 9 (4) takes tray 3. Job 1 then finds nothing free and becomes the head with nothing after it.
  const std::vector<QueuedJob> queue = {{5, {4}, 30}, {3, {8}, 20}, {9, {4}, 40}, {1, {1}, 5}};
  CHECK(started(easy_backfill(0, state, queue, {}, kPerGpu)) ==
        Started{{5, ids(0, 4)}, {3, ids(4, 12)}, {9, ids(12, 16)}});
}

TEST_CASE("the head's reservation counts jobs started in the same pass", "[easy_backfill]") {
  ClusterState state(kFourTrays);
  // At t=10 job 5 (12 GPUs) starts on trays 0..2 until 10 + 100 = 110. Head job 3 wants all 16: shadow
  // time 110, everything reserved. Job 9 on tray 3 would end at 111, too late; job 4 ends at 110, in time.
  const std::vector<QueuedJob> queue = {{5, {12}, 100}, {3, {16}, 10}, {9, {4}, 101}, {4, {4}, 100}};
  CHECK(started(easy_backfill(10, state, queue, {}, kPerGpu)) == Started{{5, ids(0, 12)}, {4, ids(12, 16)}});
}

TEST_CASE("running jobs ending together are replayed by job index", "[easy_backfill]") {
  ClusterState state(kFourTrays);
  // GPUs 0, 1 are free. Jobs 7 and 3 both end at 100; job 9 runs long.
  const std::vector<RunningJob> running = {run(state, 7, 100, ids(8, 12)), run(state, 3, 100, {2, 3}),
                                           run(state, 9, 500, {4, 5, 6, 7, 12, 13, 14, 15})};
  // Head job 1 (4 GPUs). Job 3 is replayed first: tray 0 becomes idle and the head fits there, so GPUs
  // 0..3 are reserved from 100. Job 2 (1 GPU until 1000) would take GPU 0 (tray 0, 2 free, is the best
  // fit) and must wait. Replaying job 7 first would have reserved tray 2 instead and let job 2 start.
  const std::vector<QueuedJob> queue = {{1, {4}, 10}, {2, {1}, 1000}};
  CHECK(started(easy_backfill(0, state, queue, running, kPerGpu)).empty());
}

TEST_CASE("a reservation's held trays are reserved too", "[easy_backfill]") {
  ClusterState state(kFourTrays);
  // Only GPU 2 is free until job 0 ends at 100.
  std::vector<int> busy = {0, 1, 3};
  for (int gpu = 4; gpu < 16; ++gpu) busy.push_back(gpu);
  const std::vector<RunningJob> running = {run(state, 0, 100, busy)};
  // Head job 1 (2 GPUs) is reserved GPUs 0, 1 of tray 0 from 100. Job 2 (1 GPU until 1000) fits on GPU 2,
  // which per-gpu does not reserve; under the holding policy the reservation also holds tray 0, so job 2
  // would be in the head's way and must wait.
  const std::vector<QueuedJob> queue = {{1, {2}, 10}, {2, {1}, 1000}};
  CHECK(started(easy_backfill(0, state, queue, running, kPerGpu)) == Started{{2, {2}}});
  CHECK(started(easy_backfill(0, state, queue, running, HoldingPolicy{})).empty());
}

TEST_CASE("a job that would hold a tray the reservation has GPUs on waits", "[easy_backfill]") {
  ClusterState state(kFourTrays);
  // GPU 3 is down; job 0 runs on GPUs 0 and 1 until 100, job 9 on trays 1..3 until 1000: GPU 2 is free.
  state.set_down(3, true);
  const std::vector<RunningJob> running = {run(state, 0, 100, {0, 1}), run(state, 9, 1000, ids(4, 16))};
  // Head job 1 (2 GPUs) is reserved GPUs 0 and 1 from 100, holding nothing. Job 2 (1 GPU until 1000) fits
  // on GPU 2, outside the reservation; when 1-GPU jobs hold their tray it would close tray 0 to the head.
  const std::vector<QueuedJob> queue = {{1, {2}, 10}, {2, {1}, 1000}};
  CHECK(started(easy_backfill(0, state, queue, running, kPerGpu)) == Started{{2, {2}}});
  CHECK(started(easy_backfill(0, state, queue, running, HoldingPolicy{1, true})).empty());
}

TEST_CASE("backfill examines at most max_job_test jobs past the head", "[easy_backfill]") {
  ClusterState state(kFourTrays);
  const std::vector<RunningJob> running = {run(state, 0, 100, ids(4, 16))};
  // Head job 1 reserves GPUs 0..7 from 100. Jobs 2 and 3 (8 GPUs) cannot start now; job 4 could (ends
  // at 50), but it is the third job past the head.
  const std::vector<QueuedJob> queue = {{1, {8}, 10}, {2, {8}, 10}, {3, {8}, 10}, {4, {4}, 50}};
  const auto with_limit = [&](std::size_t limit) {
    return started(easy_backfill(0, state, queue, running, kPerGpu, BackfillConfig{limit}));
  };
  CHECK(with_limit(0).empty());
  CHECK(with_limit(2).empty());
  CHECK(with_limit(3) == Started{{4, ids(0, 4)}});
  CHECK(started(easy_backfill(0, state, queue, running, kPerGpu)) == Started{{4, ids(0, 4)}});
}

TEST_CASE("a head that can never fit is passed over: jobs past it start", "[easy_backfill]") {
  ClusterState state(kFourTrays);
  // Job 0 starts on tray 0; job 1 wants 20 of 16 GPUs, so nothing is promised to it and job 2 starts.
  const std::vector<QueuedJob> queue = {{0, {4}, 10}, {1, {20}, 10}, {2, {1}, 1}};
  CHECK(started(easy_backfill(0, state, queue, {}, kPerGpu)) == Started{{0, ids(0, 4)}, {2, ids(4, 5)}});
  // Without the backfill pass, jobs start in order only, and job 2 waits behind job 1.
  BackfillConfig in_order;
  in_order.backfill = false;
  CHECK(started(easy_backfill(0, state, queue, {}, kPerGpu, in_order)) == Started{{0, ids(0, 4)}});
}

TEST_CASE("past a head that can never fit, the next job that cannot start gets the reservation",
          "[easy_backfill]") {
  ClusterState state(kFourTrays);
  // GPUs 0..7 are down: 8 GPUs left, and job 1 (12 GPUs) can never fit. Job 9 runs on GPUs 8..11 until 100.
  for (int gpu = 0; gpu < 8; ++gpu) state.set_down(gpu, true);
  const std::vector<RunningJob> running = {run(state, 9, 100, ids(8, 12))};
  // Job 2 (8 GPUs) does not fit now and gets the reservation: GPUs 8..15 from 100. Job 3 (4 GPUs, 200 s)
  // would take GPUs 12..15 past 100, so it waits; job 4 (4 GPUs, 50 s) ends by then and starts.
  const std::vector<QueuedJob> queue = {{1, {12}, 10}, {2, {8}, 10}, {3, {4}, 200}, {4, {4}, 50}};
  CHECK(started(easy_backfill(0, state, queue, running, kPerGpu)) == Started{{4, ids(12, 16)}});
}

TEST_CASE("a pass reports what the jobs past a head that can never fit showed", "[easy_backfill]") {
  ClusterState state(kFourTrays);
  // Job 9 runs on GPU 0 and holds tray 0: 12 GPUs free, 15 idle.
  RunningJob holder{9, 100, Allocation{{0}, {0}}};
  state.apply(holder.allocation);
  const std::vector<RunningJob> running = {holder};
  // Head job 1 wants 20 of 16 GPUs and is passed over. Job 2 (14 GPUs) fits the idle GPUs by count but
  // not the free ones: the pass is placement-blocked. Job 2 then gets the reservation (from 100), and job
  // 3 ends before it.
  const std::vector<QueuedJob> queue = {{1, {20}, 10}, {2, {14}, 10}, {3, {1}, 10}};
  nvlsim::BackfillReport report;
  CHECK(started(easy_backfill(0, state, queue, running, HoldingPolicy{}, {}, &report)) ==
        Started{{3, ids(4, 5)}});
  CHECK(report.placement_blocked);
}

TEST_CASE("backfill keeps a job without a time limit off resources promised at the end of time",
          "[easy_backfill]") {
  const double forever = std::numeric_limits<double>::infinity();
  ClusterState state(kFourTrays);
  // Job 0 never ends by its limit; the head (16 GPUs) is promised everything once it does.
  const std::vector<RunningJob> running = {run(state, 0, forever, ids(4, 16))};
  // Job 2 has no limit either: it would hold GPUs the head is promised, so it waits. Job 3 ends.
  const std::vector<QueuedJob> queue = {{1, {16}, 10}, {2, {4}, forever}, {3, {4}, 50}};
  CHECK(started(nvlsim::easy_backfill(0, state, queue, running, kPerGpu)) == Started{{3, ids(0, 4)}});
}

namespace {

// What a policy can see of a state: every GPU's and tray's availability and the totals.
std::vector<int> observable(const ClusterState& state) {
  std::vector<int> seen{state.free_gpus(), state.busy_gpus(), state.allocated_gpus(), state.idle_trays()};
  for (int gpu = 0; gpu < state.shape().gpus(); ++gpu) seen.push_back(state.gpu_free(gpu) ? 1 : 0);
  for (int tray = 0; tray < state.shape().trays(); ++tray) {
    seen.push_back(state.free_gpus_in_tray(tray));
    seen.push_back(state.tray_held(tray) ? 1 : 0);
  }
  for (int free = 0; free <= state.shape().gpus_per_tray; ++free)
    seen.push_back(state.first_tray_with_free(free));
  return seen;
}

// HoldingPolicy until its `calls`-th placement, which throws.
class FailingPolicy final : public PlacementPolicy {
 public:
  explicit FailingPolicy(int calls) : calls_left_(calls) {}
  const std::string& name() const override { return name_; }
  std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const override {
    if (--calls_left_ == 0) throw std::runtime_error("placement failed");
    return HoldingPolicy{}.place(state, request);
  }

 private:
  std::string name_ = "failing";
  mutable int calls_left_;
};

}  // namespace

TEST_CASE("a pass gives the state back as it found it even when it fails", "[easy_backfill]") {
  ClusterState state(kFourTrays);
  const std::vector<RunningJob> running = {run(state, 0, 100, ids(0, 2))};
  const auto before = observable(state);
  // Jobs 1 and 2 take trays 1 to 3 in order and hold them, 3 does not fit, 4 backfills on tray 0.
  const std::vector<QueuedJob> queue = {{1, {4}, 10}, {2, {8}, 10}, {3, {8}, 10}, {4, {1}, 10}};
  std::vector<std::size_t> jobs;
  for (const StartDecision& d : easy_backfill(0, state, queue, running, HoldingPolicy{}))
    jobs.push_back(d.job);
  CHECK(jobs == std::vector<std::size_t>{1, 2, 4});
  CHECK(observable(state) == before);
  // The third placement throws after two jobs were applied to the state.
  CHECK_THROWS_WITH(easy_backfill(0, state, queue, running, FailingPolicy(3)), "placement failed");
  CHECK(observable(state) == before);
}
