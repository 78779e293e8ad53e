#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "schedulers/per_gpu_policy.hpp"

using nvlsim::Allocation;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::PerGpuPolicy;

namespace {

// Two NVL72 racks: trays 0..17 (GPUs 0..71) in domain 0, trays 18..35 (GPUs 72..143) in domain 1.
constexpr ClusterShape kTwoRacks{2, 18, 4};

// GPU ids first..end-1.
std::vector<int> ids(int first, int end) {
  std::vector<int> result(end - first);
  std::iota(result.begin(), result.end(), first);
  return result;
}

std::vector<int> concat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void occupy(ClusterState& state, std::vector<int> gpus) {
  state.apply(Allocation{std::move(gpus), {}});
}

// Every tray busy except the listed ones.
ClusterState only_trays_free(std::vector<int> free_trays) {
  ClusterState state(kTwoRacks);
  std::vector<int> busy;
  for (int tray = 0; tray < kTwoRacks.trays(); ++tray) {
    if (std::find(free_trays.begin(), free_trays.end(), tray) == free_trays.end()) {
      const auto tray_gpus = ids(4 * tray, 4 * tray + 4);
      busy.insert(busy.end(), tray_gpus.begin(), tray_gpus.end());
    }
  }
  occupy(state, busy);
  return state;
}

// The GPUs per-gpu picks, or {-1} when it cannot place the request.
std::vector<int> place(const ClusterState& state, int gpus) {
  const auto allocation = PerGpuPolicy{}.place(state, {gpus});
  if (!allocation) return {-1};
  CHECK(allocation->held_trays.empty());
  return allocation->gpus;
}

}  // namespace

TEST_CASE("per-gpu puts a small job on the fitting tray with the fewest free GPUs", "[per_gpu]") {
  ClusterState state(kTwoRacks);
  // On an empty machine every tray ties at 4 free: the lowest index wins.
  CHECK(place(state, 1) == std::vector{0});
  CHECK(place(state, 4) == ids(0, 4));

  occupy(state, {12, 13});      // tray 3: 2 free (14, 15)
  occupy(state, {20});          // tray 5: 3 free (21..23)
  occupy(state, {28, 30});      // tray 7: 2 free (29, 31), ties with tray 3 but comes later
  occupy(state, {36, 37, 38});  // tray 9: 1 free (39), later than the untouched tray 0
  CHECK(place(state, 1) == std::vector{39});
  CHECK(place(state, 2) == std::vector{14, 15});
  CHECK(place(state, 3) == std::vector{21, 22, 23});
  CHECK(place(state, 4) == ids(0, 4));
}

TEST_CASE("per-gpu lets jobs share a tray on different GPUs", "[per_gpu]") {
  ClusterState state(kTwoRacks);
  occupy(state, {0});  // one job on tray 0
  // Tray 0 has 3 free, every other tray 4: best fit puts the 2-GPU job next to the first.
  const auto second = place(state, 2);
  CHECK(second == std::vector{1, 2});
  occupy(state, second);
  // Now tray 0 has 1 free: a third job fills it.
  CHECK(place(state, 1) == std::vector{3});
}

TEST_CASE("per-gpu takes the tightest run of consecutive trays, not the first or largest", "[per_gpu]") {
  // Runs in index order: A = trays 2..5 (16 GPUs: 8..23), B = trays 10..11 (8: 40..47),
  // C = trays 20..22 (12: 80..91).
  const ClusterState state = only_trays_free({2, 3, 4, 5, 10, 11, 20, 21, 22});
  // 8 GPUs: A, B and C all hold it; B (8) is tightest although A comes first and is larger.
  CHECK(place(state, 8) == ids(40, 48));
  // 10 GPUs: A (16) and C (12) hold it; C is tighter. Trays 20 and 21 whole, then 2 of tray 22.
  CHECK(place(state, 10) == ids(80, 90));
  // 6 GPUs: B is tightest; tray 10 whole (40..43), then the lowest 2 of tray 11.
  CHECK(place(state, 6) == ids(40, 46));
  // 16 GPUs: only A holds it, and exactly.
  CHECK(place(state, 16) == ids(8, 24));
}

TEST_CASE("per-gpu takes the largest run whole when no run holds the request", "[per_gpu]") {
  // Same runs: A = trays 2..5 (16), B = trays 10..11 (8), C = trays 20..22 (12); 36 GPUs in all.
  const ClusterState state = only_trays_free({2, 3, 4, 5, 10, 11, 20, 21, 22});
  // 20: nothing holds 20, so A goes whole (rest 4); B (8) and C (12) both hold 4: B is tighter,
  // and its first tray suffices.
  CHECK(place(state, 20) == concat(ids(8, 24), ids(40, 44)));
  // 30: A whole (rest 14); nothing holds 14, so C whole (rest 2); then B gives 40, 41.
  CHECK(place(state, 30) == concat(concat(ids(8, 24), {40, 41}), ids(80, 92)));
  // 36: everything.
  CHECK(place(state, 36) == concat(concat(ids(8, 24), ids(40, 48)), ids(80, 92)));
  CHECK(place(state, 37) == std::vector{-1});
}

TEST_CASE("per-gpu breaks ties between equally large runs by index", "[per_gpu]") {
  // Runs: trays 0..1 (8: 0..7), tray 15 (4: 60..63), trays 30..31 (8: 120..127).
  const ClusterState state = only_trays_free({0, 1, 15, 30, 31});
  // 12: no run holds it; the two 8-GPU runs tie for largest, the earlier goes whole (rest 4);
  // tray 15 (4) is then tighter than trays 30..31 (8).
  CHECK(place(state, 12) == concat(ids(0, 8), ids(60, 64)));
  // 8: trays 0..1 and 30..31 both hold it exactly; the earlier wins.
  CHECK(place(state, 8) == ids(0, 8));
}

TEST_CASE("per-gpu runs cross rack boundaries as if they were not there", "[per_gpu]") {
  // Trays 17 (last of domain 0, GPUs 68..71) and 18 (first of domain 1, GPUs 72..75) form one 8-GPU run;
  // domain 1 also has an idle stretch, trays 24..35 (48 GPUs: 96..143).
  std::vector<int> free_trays = {17, 18};
  const auto idle = ids(24, 36);
  free_trays.insert(free_trays.end(), idle.begin(), idle.end());
  const ClusterState state = only_trays_free(free_trays);
  // 8 GPUs: the boundary run is tightest, so the job is split 4 + 4 across the two domains even though
  // domain 1 alone could hold it.
  CHECK(place(state, 8) == ids(68, 76));

  // Trays 16..19 free (GPUs 64..79) and the same idle stretch: 16 GPUs take trays 16..19, 8 per domain.
  const auto wider = [&] {
    std::vector<int> trays = {16, 17, 18, 19};
    trays.insert(trays.end(), idle.begin(), idle.end());
    return only_trays_free(trays);
  }();
  CHECK(place(wider, 16) == ids(64, 80));
}

TEST_CASE("per-gpu spreads a small job over trays when no single tray fits it", "[per_gpu]") {
  ClusterState state = only_trays_free({3, 4, 10, 12});
  occupy(state, {12, 14});      // tray 3: 13, 15 free
  occupy(state, {18, 19});      // tray 4: 16, 17 free
  occupy(state, {40, 41});      // tray 10: 42, 43 free
  occupy(state, {48, 49, 50});  // tray 12: 51 free
  // 3 GPUs: no tray has 3. Runs: trays 3..4 (4 free), tray 10 (2), tray 12 (1); only 3..4 holds 3:
  // all of tray 3, then the lowest free GPU of tray 4.
  CHECK(place(state, 3) == std::vector{13, 15, 16});
  // 5 GPUs: nothing holds 5; trays 3..4 whole (4), then tray 12 (1) is tighter than tray 10 (2).
  CHECK(place(state, 5) == std::vector{13, 15, 16, 17, 51});
  // 7 = every free GPU: trays 3..4 whole (rest 3), nothing holds 3 so tray 10 whole, then tray 12.
  CHECK(place(state, 7) == std::vector{13, 15, 16, 17, 42, 43, 51});
  CHECK(place(state, 8) == std::vector{-1});
}

TEST_CASE("per-gpu treats held trays and down GPUs as unusable", "[per_gpu]") {
  ClusterState state = only_trays_free({0, 1, 2, 3});
  state.apply(Allocation{{}, {1}});  // tray 1 held: runs are now tray 0 (4) and trays 2..3 (8)
  state.set_down(9, true);           // tray 2 keeps 8, 10, 11: trays 2..3 have 7 free
  // 6 GPUs: tray 0 is too small, trays 2..3 hold it: 8, 10, 11 then 12, 13, 14.
  CHECK(place(state, 6) == std::vector{8, 10, 11, 12, 13, 14});
  // 11 = all free: tray 0 cannot hold it, nor trays 2..3; the larger (2..3) whole, then tray 0.
  CHECK(place(state, 11) == std::vector{0, 1, 2, 3, 8, 10, 11, 12, 13, 14, 15});
  CHECK(place(state, 12) == std::vector{-1});
}

TEST_CASE("per-gpu always returns exactly the request, on free GPUs, ascending", "[per_gpu]") {
  // Not hand-derived: a property check over random states of a 4-rack machine.
  const ClusterShape shape{4, 18, 4};
  std::mt19937 random(7);
  for (int round = 0; round < 50; ++round) {
    ClusterState state(shape);
    std::vector<int> busy;
    for (int gpu = 0; gpu < shape.gpus(); ++gpu) {
      if (std::bernoulli_distribution(0.6)(random)) busy.push_back(gpu);
    }
    occupy(state, busy);
    for (int gpus = 1; gpus <= state.free_gpus() + 1; ++gpus) {
      const auto allocation = PerGpuPolicy{}.place(state, {gpus});
      if (!allocation) {
        CHECK(gpus > state.free_gpus());
        continue;
      }
      const auto& got = allocation->gpus;
      const bool valid = static_cast<int>(got.size()) == gpus && std::is_sorted(got.begin(), got.end()) &&
                         std::adjacent_find(got.begin(), got.end()) == got.end() &&
                         std::all_of(got.begin(), got.end(), [&](int gpu) { return state.gpu_free(gpu); }) &&
                         allocation->held_trays.empty();
      CHECK(valid);
    }
  }
}
