#include <catch2/catch.hpp>

#include <vector>

#include "placement_fixtures.hpp"
#include "schedulers/policy_registry.hpp"

using nvlsim::Allocation;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::PolicyContext;
using nvlsim::test::concat;
using nvlsim::test::ids;

namespace {

// Eight NVL72 racks, 144 trays of 4 GPUs. With 32 trays per leaf: leaves 0..3 hold 128 GPUs each
// (GPUs 0..127, 128..255, 256..383, 384..511), leaf 4 holds trays 128..143 (GPUs 512..575).
constexpr ClusterShape kEightRacks{8, 18, 4};

std::vector<int> place(const ClusterState& state, int gpus, int leaves_per_group = 0,
                       int trays_per_leaf = 32) {
  PolicyContext context{kEightRacks};
  context.trays_per_leaf = trays_per_leaf;
  context.leaves_per_group = leaves_per_group;
  const auto allocation = nvlsim::make_policy("tree", context)->place(state, {gpus});
  if (!allocation) return {-1};
  CHECK(allocation->held_trays.empty());
  return allocation->gpus;
}

}  // namespace

TEST_CASE("tree keeps a job that fits one leaf under the tightest such leaf", "[tree]") {
  ClusterState state(kEightRacks);
  // 64 GPUs: leaf 4 (64 free) is tighter than leaves 0..3 (128).
  CHECK(place(state, 64) == ids(512, 576));
  // 100 GPUs: only leaves 0..3 hold it; the lowest wins, crossing the rack 0/1 boundary at GPU 72.
  CHECK(place(state, 100) == ids(0, 100));
  state.apply(Allocation{ids(0, 60), {}});  // leaf 0 down to 68 free
  // 60 GPUs: leaf 4 (64) is tighter than leaf 0 (68); 66 GPUs: leaf 0 (68) is the tightest.
  CHECK(place(state, 60) == ids(512, 572));
  CHECK(place(state, 66) == ids(60, 126));
  // 2 GPUs: leaf 4 (64) is still the tightest leaf; its first tray.
  CHECK(place(state, 2) == std::vector{512, 513});
}

TEST_CASE("tree fills the fullest leaves of the lowest switch that holds the job", "[tree]") {
  ClusterState state(kEightRacks);
  // 200 GPUs under the single spine: no leaf holds it, leaf 0 whole, then the tightest leaf holding 72
  // is leaf 1 (leaf 4 has only 64).
  CHECK(place(state, 200) == ids(0, 200));
  state.apply(Allocation{ids(0, 60), {}});  // leaf 0: 68 free
  // One spine: leaves 1, 2, 3 tie at 128, leaf 1 whole; 72 left: leaf 0 (68) is too small, so leaf 2.
  CHECK(place(state, 200) == ids(128, 328));
  // Spine groups of 2 leaves: {0,1} has 196 free, {2,3} 256 (the only one that holds 200): leaf 2
  // whole, then 72 of leaf 3.
  CHECK(place(state, 200, 2) == ids(256, 456));
  // 300 GPUs exceed every spine group (256 at most): the core. Leaves 1, 2 whole (fullest), then the
  // tightest leaf holding 44: leaf 4 (64).
  CHECK(place(state, 300, 2) == concat(ids(128, 384), ids(512, 556)));
  CHECK(place(state, 517) == std::vector{-1});  // 576 - 60 = 516 free
}

TEST_CASE("tree with one leaf per rack keeps a 72-GPU job inside a rack", "[tree]") {
  ClusterState state(kEightRacks);
  state.apply(Allocation{ids(0, 4), {}});
  // Leaves of 18 trays are the racks; rack 0 has 68 free, the others 72: a 72-GPU job gets rack 1.
  CHECK(place(state, 72, 0, 18) == ids(72, 144));
  // With 32-tray leaves leaf 4 (64) is too small and leaf 0 (124) is the tightest: the job straddles
  // racks 0 and 1 (GPUs 4..75).
  CHECK(place(state, 72) == ids(4, 76));
}
