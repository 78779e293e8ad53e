#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/input_error.hpp"
#include "placement_fixtures.hpp"
#include "schedulers/easy_backfill.hpp"
#include "schedulers/policy_registry.hpp"

using nvlsim::Allocation;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::PolicyContext;
using nvlsim::test::busy_trays;
using nvlsim::test::concat;
using nvlsim::test::ids;
using nvlsim::test::kEightRacks;
using nvlsim::test::tray_gpus;
using nvlsim::test::with_idle_trays;

namespace {

// What `spec` gives a job of `gpus`; gpus {-1} when it must wait.
Allocation place(const std::string& spec, const ClusterState& state, int gpus) {
  return nvlsim::test::place_with(spec, state, gpus).value_or(Allocation{{-1}, {}});
}

}  // namespace

TEST_CASE("block closes the whole rack to others even for one tray", "[block]") {
  const ClusterState empty(kEightRacks);
  // One node; every rack ties at 18 idle, the later wins: tray 126 of rack 7, which is held whole.
  const Allocation small = place("block", empty, 3);
  CHECK(small.gpus == ids(504, 507));
  CHECK(small.held_trays == ids(126, 144));
  ClusterState after = empty;
  after.apply(small);
  CHECK(after.free_gpus_in_domain(7) == 0);
  // The next job cannot use rack 7's 69 free GPUs: rack 6.
  CHECK(place("block", after, 1).held_trays == ids(108, 126));
}

TEST_CASE("block uses only racks with nothing running", "[block]") {
  ClusterState state(kEightRacks);
  for (int rack = 1; rack < 8; ++rack) state.apply(Allocation{{72 * rack + 5}, {}});  // one GPU busy per rack
  // Only rack 0 is usable.
  CHECK(place("block", state, 8).gpus == ids(0, 8));
  busy_trays(state, 0, 1);
  CHECK(place("block", state, 1).gpus == std::vector{-1});
}

TEST_CASE("block needs every tray up unless min_block_nodes allows fewer", "[block]") {
  ClusterState state(kEightRacks);
  state.set_down(504, true);  // tray 126 of rack 7
  // 72 GPUs = 18 nodes: rack 7 has only 17 idle trays; racks 0..6 tie, the later (6) wins.
  const Allocation whole = place("block", state, 72);
  CHECK(whole.gpus == tray_gpus(108, 126));
  CHECK(whole.held_trays == ids(108, 126));
  // 16 nodes: by default rack 7 is unusable, so rack 6 again.
  CHECK(place("block", state, 64).gpus == tray_gpus(108, 124));
  // With 16-node blocks rack 7 counts (17 idle >= 16) and is the tightest: trays 127..142; the held
  // trays include the down one.
  const Allocation degraded = place("block:min_block_nodes=16", state, 64);
  CHECK(degraded.gpus == tray_gpus(127, 143));
  CHECK(degraded.held_trays == ids(126, 144));
  // 18 nodes still need a rack with 18 idle: rack 7 (17) loses although it is tighter.
  CHECK(place("block:min_block_nodes=16", state, 72).gpus == tray_gpus(108, 126));
}

TEST_CASE("block takes the fewest whole racks in an aligned pair", "[block]") {
  const ClusterState empty(kEightRacks);
  // 80 GPUs = 20 nodes: the 36-node level. Pairs tie, the later (racks 6, 7) wins; no rack holds 20, so
  // rack 6 whole (lowest index on ties), then 2 trays of rack 7. Both racks are held.
  const Allocation pair = place("block", empty, 80);
  CHECK(pair.gpus == tray_gpus(108, 128));
  CHECK(pair.held_trays == ids(108, 144));
  // Racks 1 and 2 idle, the rest busy: 36 idle trays, but in two different aligned pairs: it waits.
  const ClusterState split = with_idle_trays(kEightRacks, {0, 18, 18, 0, 0, 0, 0, 0});
  CHECK(place("block", split, 80).gpus == std::vector{-1});
  // Racks 2 and 3 idle form pair (2, 3): rack 2 whole, 2 trays of rack 3 (trays 54, 55).
  const ClusterState aligned = with_idle_trays(kEightRacks, {0, 18, 18, 18, 0, 0, 0, 0});
  CHECK(place("block", aligned, 80).gpus == tray_gpus(36, 56));
}

TEST_CASE("block rejects bad parameters", "[block]") {
  const PolicyContext context{kEightRacks};
  CHECK_THROWS_AS(nvlsim::make_policy("block:min_block_nodes=0", context), nvlsim::InputError);
  CHECK_THROWS_AS(nvlsim::make_policy("block:min_block_nodes=19", context), nvlsim::InputError);
  CHECK_THROWS_AS(nvlsim::make_policy("block:segment=4", context), nvlsim::InputError);
}

TEST_CASE("backfill under block keeps other jobs out of the head job's reserved racks", "[block]") {
  // Four racks (levels 18, 36, 72). Rack 0 runs a job ending at 100, rack 2 one ending at 10000.
  const ClusterShape shape{4, 18, 4};
  const auto policy = nvlsim::make_policy("block", PolicyContext{shape});
  ClusterState state(shape);
  const std::vector<nvlsim::RunningJob> running = {{0, 100, Allocation{tray_gpus(0, 18), ids(0, 18)}},
                                                   {1, 10000, Allocation{tray_gpus(36, 54), ids(36, 54)}}};
  for (const auto& job : running) state.apply(job.allocation);
  // Head: 25 nodes, the 36-node level. Pairs (0, 1) and (2, 3) offer 18 each now: it waits; at 100 it
  // gets racks 0 and 1. Job 11 (long) goes to rack 3 (ties with rack 1, later wins) and starts; job 12
  // (long) then only has rack 1, reserved: it waits. Job 13 ends by 100, so it may use rack 1.
  const std::vector<nvlsim::QueuedJob> queue = {
      {10, {100}, 500}, {11, {4}, 500}, {12, {4}, 500}, {13, {4}, 50}};
  const auto started = nvlsim::easy_backfill(0, state, queue, running, *policy);
  REQUIRE(started.size() == 2);
  CHECK(started[0].job == 11);
  CHECK(started[0].allocation.held_trays == ids(54, 72));
  CHECK(started[1].job == 13);
  CHECK(started[1].allocation.held_trays == ids(18, 36));
}
