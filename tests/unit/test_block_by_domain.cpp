// BlockEval::choose_by_domain (the block choice read from counts per NVLink domain) against BlockEval::choose
// over every tray's offer, which tests/slurm_oracle checks against the real Slurm, on fragmented machines
// with failures.

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "schedulers/block_eval.hpp"
#include "schedulers/policy_spec.hpp"

using nvlsim::BlockChoice;
using nvlsim::BlockEval;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::JobRequest;
using nvlsim::RequestShape;
using nvlsim::Segments;

namespace {

const ClusterShape kEightRacks{8, 18, 4};

// Trays busy with whole-tray jobs, GPUs busy one by one, and some GPUs down, in random proportions.
ClusterState random_state(std::mt19937_64& rng) {
  ClusterState state(kEightRacks);
  const int busy_trays = static_cast<int>(rng() % 100);
  const int busy_gpus = static_cast<int>(rng() % 200);
  for (int k = 0; k < busy_trays; ++k) {
    const int tray = static_cast<int>(rng() % kEightRacks.trays());
    if (!state.tray_idle(tray)) continue;
    nvlsim::Allocation a;
    for (int g = 0; g < 4; ++g) a.gpus.push_back(tray * 4 + g);
    a.cpus = {{tray, 1}};
    state.apply(a);
  }
  for (int k = 0; k < busy_gpus; ++k) {
    const int gpu = static_cast<int>(rng() % kEightRacks.gpus());
    if (!state.gpu_free(gpu)) continue;
    state.apply(nvlsim::Allocation{{gpu}, {}, {{kEightRacks.tray_of_gpu(gpu), 1}}});
  }
  for (int k = static_cast<int>(rng() % 4); k > 0; --k) {
    const int gpu = static_cast<int>(rng() % kEightRacks.gpus());
    if (state.gpu_free(gpu)) state.set_down(gpu, true);
  }
  return state;
}

std::vector<int> sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("the block choice read per domain is the choice over every tray's offer", "[block][sub_block]") {
  const BlockEval eval(nvlsim::make_block_layout(nvlsim::PolicyContext{kEightRacks}), kEightRacks);
  REQUIRE(eval.by_domain());
  std::mt19937_64 rng(7);
  int decided = 0, undecided = 0, placed = 0, refused = 0, gpu_counts = 0;
  for (int round = 0; round < 400; ++round) {
    const ClusterState state = random_state(rng);
    // Every domain is open (sub-block).
    const std::vector<char> open(kEightRacks.domains, 1);
    for (int k = 0; k < 12; ++k) {
      JobRequest request;
      Segments segments;
      if (rng() % 2 == 0) {
        request = {1 + static_cast<int>(rng() % 80), RequestShape::gpus};
      } else {
        const int nodes = 1 + static_cast<int>(rng() % 100);
        request = {4 * nodes, RequestShape::nodes};
        static constexpr int kSegments[] = {0, 0, 1, 2, 4, 8, 16};
        segments.nodes = kSegments[rng() % std::size(kSegments)];
        segments.spread = rng() % 4 == 0;
      }
      INFO("round " << round << ", " << request.gpus
                    << (request.shape == RequestShape::nodes ? " in trays" : " GPUs") << ", segment "
                    << segments.nodes << (segments.spread ? " spread" : ""));
      const auto quick = eval.choose_by_domain(state, request, segments, nvlsim::OpenDomains{});
      if (!quick) {
        ++undecided;
        continue;
      }
      std::vector<nvlsim::cons_tres::NodeOffer> offers;
      for (int tray = 0; tray < kEightRacks.trays(); ++tray)
        if (open[kEightRacks.domain_of_tray(tray)])
          if (auto offer = nvlsim::cons_tres::offer(state, tray, request, nvlsim::SlurmVersion::v24_11))
            offers.push_back(*offer);
      const BlockChoice every =
          eval.choose(offers, request, nvlsim::cons_tres::initial_demand(state, request), segments);
      REQUIRE(quick->unavailable == every.unavailable);
      REQUIRE(quick->taken.has_value() == every.taken.has_value());
      if (quick->taken) REQUIRE(sorted(*quick->taken) == sorted(*every.taken));
      ++decided;
      placed += quick->taken.has_value();
      refused += !quick->taken.has_value();
      gpu_counts += request.shape == RequestShape::gpus;
    }
  }
  // Both kinds of answer, for both kinds of request, and most requests read per domain (the others are GPU
  // counts whose block falls short of GPUs, and jobs of more blocks than a level holds).
  CHECK(placed > 1000);
  CHECK(refused > 300);
  CHECK(gpu_counts > 1000);
  CHECK(decided > 2 * undecided);
}

TEST_CASE("block's choice among the domains without jobs is the choice over every tray's offer", "[block]") {
  const BlockEval eval(nvlsim::make_block_layout(nvlsim::PolicyContext{kEightRacks}), kEightRacks);
  std::mt19937_64 rng(11);
  int placed = 0, refused = 0, wide = 0, down = 0, undecided = 0;
  for (int round = 0; round < 400; ++round) {
    // Some domains run a job on a random share of their trays, the others are free, and in some a GPU is
    // down: what `block` sees, every job holding its domains. Its open domains are those without jobs.
    ClusterState state(kEightRacks);
    for (int d = 0; d < kEightRacks.domains; ++d) {
      if (rng() % 2 == 0) continue;
      nvlsim::Allocation job;
      for (int gpu = d * 72; gpu < d * 72 + 4 * static_cast<int>(1 + rng() % 18); ++gpu)
        job.gpus.push_back(gpu);
      job.cpus = {{d * 18, 1}};
      state.apply(job);
    }
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) {
      const int gpu = static_cast<int>(rng() % kEightRacks.gpus());
      if (state.gpu_free(gpu)) state.set_down(gpu, true);
    }
    std::vector<char> open(kEightRacks.domains);
    std::vector<int> extra;
    for (int d = 0; d < kEightRacks.domains; ++d) {
      open[d] = state.domain_without_jobs(d);
      if (open[d] && state.free_gpus_in_domain(d) < kEightRacks.gpus_per_domain()) extra.push_back(d);
    }
    for (int k = 0; k < 10; ++k) {
      JobRequest request = rng() % 2 == 0
                               ? JobRequest{1 + static_cast<int>(rng() % 80), RequestShape::gpus}
                               : JobRequest{4 * (1 + static_cast<int>(rng() % 100)), RequestShape::nodes};
      request.cpus_per_gpu = rng() % 3 == 0 ? 36 : 0;
      INFO("round " << round << ", " << request.gpus
                    << (request.shape == RequestShape::nodes ? " in trays" : " GPUs") << ", "
                    << request.cpus_per_gpu << " cores per GPU");
      const auto quick = eval.choose_by_domain(state, request, {}, nvlsim::OpenDomains{false, extra});
      if (!quick) {
        ++undecided;
        continue;
      }
      std::vector<nvlsim::cons_tres::NodeOffer> offers;
      for (int tray = 0; tray < kEightRacks.trays(); ++tray)
        if (open[kEightRacks.domain_of_tray(tray)])
          if (auto offer = nvlsim::cons_tres::offer(state, tray, request, nvlsim::SlurmVersion::v24_11))
            offers.push_back(*offer);
      const BlockChoice every =
          eval.choose(offers, request, nvlsim::cons_tres::initial_demand(state, request), {});
      REQUIRE(quick->taken.has_value() == every.taken.has_value());
      if (quick->taken) REQUIRE(sorted(*quick->taken) == sorted(*every.taken));
      placed += quick->taken.has_value();
      refused += !quick->taken.has_value();
      wide += request.shape == RequestShape::nodes && request.gpus > 72 && quick->taken.has_value();
      down += !extra.empty();
    }
  }
  CHECK(placed > 500);
  CHECK(refused > 300);
  CHECK(wide > 50);
  CHECK(down > 1000);
  CHECK(undecided < placed / 10);  // the GPU counts whose domain falls short of GPUs
}
