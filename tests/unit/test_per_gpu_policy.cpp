#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "schedulers/per_gpu_policy.hpp"
#include "slurm_scenario.hpp"

using nvlsim::Allocation;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::JobRequest;
using nvlsim::PerGpuPolicy;
using nvlsim::RequestShape;
using nvlsim::test::SlurmScenario;

// Expected placements below are what Slurm 22.05's select/cons_tres did on 36 emulated trays of 4 GPUs
// (tests/slurm_oracle checks many more states against a running Slurm; these need none).

TEST_CASE("per-gpu: the ten requests of the oracle notes land where Slurm put them", "[per_gpu][slurm]") {
  for (const bool cpu_share : {false, true}) {
    // 64 cores per tray and no CPU request, or 4 cores per tray and one core per GPU: the same places,
    // except J.
    SlurmScenario s(std::make_unique<PerGpuPolicy>(nvlsim::SlurmVersion::v22_05),
                    ClusterShape{2, 18, 4, cpu_share ? 4 : 64}, cpu_share ? 1 : 0);
    CHECK(s.submit("A", 4) == "tray-0:0-3");
    CHECK(s.submit("B", 8) == "tray-1:0-3 tray-2:0-3");
    CHECK(s.submit("C", 2) == "tray-3:0-1");
    // Not tray 3's two free GPUs first: trays offering all 4 GPUs weigh less and are used first.
    CHECK(s.submit("D", 12) == "tray-4:0-3 tray-5:0-3 tray-6:0-3");
    CHECK(s.submit("E", 1) == "tray-3:2");
    CHECK(s.submit("F", 36) ==
          "tray-7:0-3 tray-8:0-3 tray-9:0-3 tray-10:0-3 tray-11:0-3 tray-12:0-3 "
          "tray-13:0-3 tray-14:0-3 tray-15:0-3");
    CHECK(s.submit("G", 3) == "tray-16:0-2");
    s.end("B");
    s.end("E");
    CHECK(s.submit("H", 5) == "tray-1:0-3 tray-2:0");
    CHECK(s.submit("I", 16) == "tray-17:0-3 tray-18:0-3 tray-19:0-3 tray-20:0-3");
    // Best fit counts free CPUs: with one CPU per job, tray 2 (3 GPUs, 62 CPUs free) beats tray 3 (2 GPUs,
    // 63 CPUs); with one CPU per GPU, tray 3 (2 CPUs free) beats tray 2 (3).
    CHECK(s.submit("J", 2) == (cpu_share ? "tray-3:2-3" : "tray-2:1-2"));
  }
}

TEST_CASE("per-gpu fills holes left by ended jobs best fit, as Slurm did", "[per_gpu][slurm]") {
  SlurmScenario s(std::make_unique<PerGpuPolicy>(nvlsim::SlurmVersion::v22_05), ClusterShape{2, 18, 4, 64},
                  0);
  CHECK(s.submit("A", 4) == "tray-0:0-3");
  CHECK(s.submit("B", 8) == "tray-1:0-3 tray-2:0-3");
  CHECK(s.submit("C", 12) == "tray-3:0-3 tray-4:0-3 tray-5:0-3");
  CHECK(s.submit("D", 16) == "tray-6:0-3 tray-7:0-3 tray-8:0-3 tray-9:0-3");
  CHECK(s.submit("E", 8) == "tray-10:0-3 tray-11:0-3");
  s.end("B");
  s.end("D");
  CHECK(s.submit("F", 8) == "tray-1:0-3 tray-2:0-3");
  CHECK(s.submit("G", 12) == "tray-6:0-3 tray-7:0-3 tray-8:0-3");
  CHECK(s.submit("H", 4) == "tray-9:0-3");
  CHECK(s.submit("I", 6) == "tray-12:0-3 tray-13:0-1");
  CHECK(s.submit("J", 1) == "tray-13:2");
}

TEST_CASE("per-gpu: whole-tray requests take runs of idle trays, tightest first", "[per_gpu][slurm]") {
  SlurmScenario s(std::make_unique<PerGpuPolicy>(nvlsim::SlurmVersion::v22_05), ClusterShape{2, 18, 4, 144},
                  0);
  CHECK(s.submit("A", 4) == "tray-0:0-3");
  CHECK(s.submit("B", 8, RequestShape::nodes) == "tray-1:0-3 tray-2:0-3");
  CHECK(s.submit("C", 1) == "tray-3:0");
  CHECK(s.submit("D", 12, RequestShape::nodes) == "tray-4:0-3 tray-5:0-3 tray-6:0-3");
  s.end("B");
  // Runs of idle trays: 1..2 and 7..35; the tightest that holds two nodes.
  CHECK(s.submit("E", 8, RequestShape::nodes) == "tray-1:0-3 tray-2:0-3");
  // A tray with a free GPU but not all four cannot serve a whole-tray request.
  CHECK(s.submit("F", 4, RequestShape::nodes) == "tray-7:0-3");
}

TEST_CASE("per-gpu refuses what Slurm cannot start now", "[per_gpu]") {
  ClusterState state(ClusterShape{2, 18, 4, 144});
  state.apply(Allocation{{0}, {}, {{0, 1}}});
  const PerGpuPolicy policy{nvlsim::SlurmVersion::v22_05};
  // 143 GPUs are free, but no 36 whole trays are.
  CHECK_FALSE(policy.place(state, JobRequest{144, RequestShape::nodes, 0}));
  CHECK(policy.place(state, JobRequest{140, RequestShape::nodes, 0}));
  CHECK(policy.place(state, JobRequest{143, RequestShape::gpus, 0}));
  CHECK_FALSE(policy.place(state, JobRequest{144, RequestShape::gpus, 0}));
  // 40 cores per GPU: a tray's 144 cores feed 3 GPUs, so 143 free GPUs offer only 3 per tray.
  CHECK_FALSE(policy.place(state, JobRequest{120, RequestShape::gpus, 40}));
  CHECK(policy.place(state, JobRequest{105, RequestShape::gpus, 40}));
}

TEST_CASE("per-gpu treats held trays and down GPUs as unusable", "[per_gpu]") {
  SlurmScenario s(std::make_unique<PerGpuPolicy>(nvlsim::SlurmVersion::v22_05), ClusterShape{1, 18, 4, 144},
                  0);
  s.hold_tray(1);
  s.down_gpu(9);  // tray 2 offers 3 GPUs
  CHECK(s.submit("A", 4) == "tray-0:0-3");
  CHECK(s.submit("B", 3) == "tray-2:0,2-3");
  CHECK(s.submit("C", 64) == "");  // 63 usable GPUs remain
}

TEST_CASE("per-gpu always returns exactly the request, on free GPUs and cores, ascending", "[per_gpu]") {
  // Not hand-derived: a property check over random states of a 4-rack machine.
  const ClusterShape shape{4, 18, 4, 144};
  std::mt19937 random(7);
  for (int round = 0; round < 50; ++round) {
    ClusterState state(shape);
    std::vector<int> busy;
    for (int gpu = 0; gpu < shape.gpus(); ++gpu) {
      if (std::bernoulli_distribution(0.6)(random)) busy.push_back(gpu);
    }
    state.apply(Allocation{busy, {}});
    for (const RequestShape form : {RequestShape::gpus, RequestShape::nodes}) {
      for (int gpus = form == RequestShape::nodes ? 4 : 1; gpus <= state.free_gpus() + 4;
           gpus += form == RequestShape::nodes ? 4 : 1) {
        const JobRequest request{gpus, form, static_cast<int>(round % 3) * 12};
        const auto allocation = PerGpuPolicy{nvlsim::SlurmVersion::v22_05}.place(state, request);
        if (!allocation) continue;
        const auto& got = allocation->gpus;
        const bool valid =
            static_cast<int>(got.size()) == gpus && std::is_sorted(got.begin(), got.end()) &&
            std::adjacent_find(got.begin(), got.end()) == got.end() &&
            std::all_of(got.begin(), got.end(), [&](int gpu) { return state.gpu_free(gpu); }) &&
            allocation->held_trays.empty();
        CHECK(valid);
        ClusterState after = state;
        CHECK_NOTHROW(after.apply(*allocation));  // the cores it charges are free too
      }
    }
  }
}
