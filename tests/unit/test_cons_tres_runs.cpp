// cons_tres's choice read from the state's trays by free count (whole-tray requests from the runs of idle
// trays, requests of at most a tray's GPUs from the trays with them free), against eval_nodes over every
// tray's offer, on machines fragmented by random jobs, releases and failures.

#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <vector>

#include "random_steps.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/cons_tres_runs.hpp"
#include "schedulers/cons_tres_select.hpp"

using nvlsim::Allocation;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::JobRequest;
using nvlsim::RequestShape;

namespace {

constexpr ClusterShape kFourRacks{4, 18, 4};  // 72 trays: runs of every length, and long jobs many rounds

JobRequest whole_trays(int nodes, int cpus_per_gpu = 0) {
  return {nodes * kFourRacks.gpus_per_tray, RequestShape::nodes, cpus_per_gpu};
}

bool contiguous(const std::vector<int>& trays) {
  return trays.empty() || trays.back() - trays.front() + 1 == static_cast<int>(trays.size());
}

}  // namespace

TEST_CASE("whole-tray requests read from the idle runs get eval_nodes' trays and every offer",
          "[per_gpu][cons_tres]") {
  int compared = 0, several_runs = 0, none = 0, not_decided = 0, offers_compared = 0;
  nvlsim::test::random_machine(kFourRacks, 2026, [&](const ClusterState& state) {
    // The offers tree reads from the idle runs are those of every tray.
    if (nvlsim::cons_tres::idle_runs_decide(state, whole_trays(1))) {
      std::vector<nvlsim::cons_tres::NodeOffer> every, idle;
      state.for_each_tray_with_free_gpus([&](int tray) {
        if (auto offer = nvlsim::cons_tres::offer(state, tray, whole_trays(1), nvlsim::SlurmVersion::v22_05))
          every.push_back(*offer);
      });
      nvlsim::cons_tres::idle_offers(state, whole_trays(1), idle);
      REQUIRE(idle == every);
      offers_compared += !every.empty();
    }
    for (const int nodes : {1, 2, 3, 5, 8, 13, 21, 34}) {
      INFO(nodes << " trays");
      const JobRequest request = whole_trays(nodes);
      if (!nvlsim::cons_tres::idle_runs_decide(state, request)) {
        REQUIRE(state.idle_trays_with_cpus_used() > 0);
        ++not_decided;
        continue;
      }
      const auto fast = nvlsim::cons_tres::eval_idle_runs(state, request);
      // eval_offers gives the trays in the order Slurm takes them; the set is what is compared.
      auto every = nvlsim::cons_tres::eval_offers(state, request, nvlsim::SlurmVersion::v22_05);
      if (every) std::sort(every->begin(), every->end());
      REQUIRE(fast == every);
      ++compared;
      if (!fast) ++none;
      if (fast && !contiguous(*fast)) ++several_runs;
    }
  });
  // The comparison saw what it is about: answers over several runs, requests that did not fit, and
  // states where the runs could not decide.
  CHECK(compared > 10000);
  CHECK(several_runs > 500);
  CHECK(none > 500);
  CHECK(not_decided > 100);
  CHECK(offers_compared > 1000);
}

TEST_CASE("requests of at most a tray's GPUs read from the trays get eval_nodes' tray",
          "[per_gpu][cons_tres]") {
  // Trays of 144 cores, and of 3, where cores run out before GPUs and runs differ by their cores.
  ClusterShape few_cores = kFourRacks;
  few_cores.cpus_per_tray = 3;
  for (const ClusterShape& shape : {kFourRacks, few_cores}) {
    INFO(shape.cpus_per_tray << " cores per tray");
    int compared = 0, undecided = 0, coreless = 0;
    std::vector<int> picked(shape.trays(), 0);
    nvlsim::test::random_machine(shape, 7, [&](const ClusterState& state) {
      for (int tray = 0; tray < shape.trays(); ++tray)
        coreless += state.free_gpus_in_tray(tray) > 0 && state.free_cpus_in_tray(tray) == 0;
      for (int gpus = 1; gpus <= shape.gpus_per_tray; ++gpus) {
        INFO(gpus << " GPUs");
        const JobRequest request{gpus};
        REQUIRE(nvlsim::cons_tres::one_tray_may_decide(request));
        const std::optional<int> tray = nvlsim::cons_tres::eval_one_tray(state, request);
        if (!tray) {
          ++undecided;
          continue;
        }
        REQUIRE(nvlsim::cons_tres::eval_offers(state, request, nvlsim::SlurmVersion::v22_05) ==
                std::vector<int>{*tray});
        ++compared;
        ++picked[*tray];
      }
    });
    CHECK(compared > 5000);
    CHECK(undecided > 100);  // no tray with the GPUs free: eval_offers decides
    CHECK(coreless > 100);   // trays with free GPUs and no core were there to be passed over
    CHECK(std::count(picked.begin(), picked.end(), 0) < shape.trays() / 2);  // choices all over the machine
  }
  CHECK_FALSE(nvlsim::cons_tres::one_tray_may_decide(whole_trays(1)));
  CHECK_FALSE(nvlsim::cons_tres::one_tray_may_decide(JobRequest{2, RequestShape::gpus, 1}));
  JobRequest shards{1};
  shards.shards = 1;
  CHECK_FALSE(nvlsim::cons_tres::one_tray_may_decide(shards));
  CHECK_FALSE(nvlsim::cons_tres::eval_one_tray(ClusterState(kFourRacks), JobRequest{5}));
}

TEST_CASE("idle runs decide only whole-tray requests without a CPU share or shards", "[per_gpu][cons_tres]") {
  ClusterState state(kFourRacks);
  CHECK(nvlsim::cons_tres::idle_runs_decide(state, whole_trays(2)));
  CHECK_FALSE(nvlsim::cons_tres::idle_runs_decide(state, JobRequest{8}));
  CHECK_FALSE(nvlsim::cons_tres::idle_runs_decide(state, whole_trays(2, 1)));
  JobRequest shards = whole_trays(2);
  shards.shards = 1;
  CHECK_FALSE(nvlsim::cons_tres::idle_runs_decide(state, shards));
  ClusterShape coreless = kFourRacks;
  coreless.cpus_per_tray = 0;
  CHECK_FALSE(nvlsim::cons_tres::idle_runs_decide(ClusterState(coreless), whole_trays(2)));
  CHECK_FALSE(nvlsim::cons_tres::eval_one_tray(ClusterState(coreless), JobRequest{1}));  // nothing offered
  // A core in use on an idle tray (a job with no GPU there) stops them; its release lets them decide again.
  const Allocation cores_elsewhere{{0}, {}, {{0, 1}, {5, 1}}};
  state.apply(cores_elsewhere);
  CHECK(state.idle_trays_with_cpus_used() == 1);
  CHECK_FALSE(nvlsim::cons_tres::idle_runs_decide(state, whole_trays(2)));
  state.release(cores_elsewhere);
  CHECK(state.idle_trays_with_cpus_used() == 0);
  CHECK(nvlsim::cons_tres::idle_runs_decide(state, whole_trays(2)));
}
