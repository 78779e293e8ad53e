// `block`: Slurm 24.11's topology/block with --exclusive=topo for every job. The expected trays follow the
// rules docs/policies.md states (lowest weight, then the fewest usable trays, the later block on ties;
// base blocks filled smallest-that-holds-the-rest first, else largest); tests/slurm_oracle checks the same
// rules against the real Slurm.

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
using nvlsim::JobRequest;
using nvlsim::PolicyContext;
using nvlsim::RequestShape;
using nvlsim::test::busy_trays;
using nvlsim::test::concat;
using nvlsim::test::ids;
using nvlsim::test::kEightRacks;
using nvlsim::test::tray_gpus;
using nvlsim::test::with_idle_trays;

namespace {

// What `spec` gives the request; gpus {-1} when it must wait.
Allocation place(const std::string& spec, const ClusterState& state, JobRequest request) {
  return nvlsim::make_policy(spec, PolicyContext{state.shape()})
      ->place(state, request)
      .value_or(Allocation{{-1}, {}});
}

JobRequest gpus(int count) {
  return {count, RequestShape::gpus};
}

JobRequest trays(int count) {
  return {4 * count, RequestShape::nodes};
}

}  // namespace

TEST_CASE("block closes the whole rack to others even for one tray", "[block]") {
  const ClusterState empty(kEightRacks);
  // Every rack ties at 18 usable trays, the later wins: tray 126 of rack 7, which is held whole.
  const Allocation small = place("block", empty, gpus(3));
  CHECK(small.gpus == ids(504, 507));
  CHECK(small.held_trays == ids(126, 144));
  ClusterState after = empty;
  after.apply(small);
  CHECK(after.free_gpus_in_domain(7) == 0);
  // The next job cannot use rack 7's 69 free GPUs: rack 6.
  CHECK(place("block", after, gpus(1)).held_trays == ids(108, 126));
}

TEST_CASE("block uses only racks with nothing running", "[block]") {
  ClusterState state(kEightRacks);
  for (int rack = 1; rack < 8; ++rack) state.apply(Allocation{{72 * rack + 5}, {}});  // one GPU busy per rack
  // Only rack 0 is open: its first two trays.
  CHECK(place("block", state, gpus(8)).gpus == ids(0, 8));
  busy_trays(state, 0, 1);
  CHECK(place("block", state, gpus(1)).gpus == std::vector{-1});
}

TEST_CASE("a down tray leaves its rack open, unless min_block_nodes asks for more idle trays", "[block]") {
  ClusterState state(kEightRacks);
  state.set_down(504, true);  // a GPU of tray 126, rack 7
  // 18 whole trays: rack 7 has 17 with every GPU free; racks 0..6 tie, the later (6) wins.
  const Allocation whole = place("block", state, trays(18));
  CHECK(whole.gpus == tray_gpus(108, 126));
  CHECK(whole.held_trays == ids(108, 126));
  // 16 trays: rack 7, with the fewest usable trays, is the tightest; it is held whole, the down tray too.
  const Allocation degraded = place("block", state, trays(16));
  CHECK(degraded.gpus == tray_gpus(127, 143));
  CHECK(degraded.held_trays == ids(126, 144));
  // nvlsim's operator rule: a rack is open only with K idle trays, so at K = 18 rack 7 is closed ...
  CHECK(place("block:min_block_nodes=18", state, trays(16)).gpus == tray_gpus(108, 124));
  // ... and at K = 16 open again.
  CHECK(place("block:min_block_nodes=16", state, trays(16)).gpus == tray_gpus(127, 143));
}

TEST_CASE("a GPU count stays in one rack, the tightest by usable trays even when its GPUs fall short",
          "[block]") {
  ClusterState state(kEightRacks);
  state.set_down(504, true);  // tray 126 of rack 7 keeps 3 free GPUs
  // --gpus=72: every rack has an idle tray, so all weigh the same; they tie at 18 usable trays and rack 7,
  // the later, is chosen but has 71 free GPUs. Slurm then drops tray 126 (fewer free resources than an
  // idle tray) and tries again: rack 7 now has the fewest usable trays and 68 GPUs. Nothing more can be
  // dropped, so the job waits although rack 6 is free.
  CHECK(place("block", state, gpus(72)).gpus == std::vector{-1});
  // More GPUs than a rack has never fit a GPU count.
  CHECK(place("block", ClusterState(kEightRacks), gpus(76)).gpus == std::vector{-1});
}

TEST_CASE("block takes racks at the job's level, the later ones first", "[block]") {
  const ClusterState empty(kEightRacks);
  // 20 trays: the 36-node level. Pairs tie, the later (racks 6, 7) wins; no rack holds 20, so the larger
  // (the later on ties, rack 7) whole, then the 2 left from rack 6. Both racks are held.
  const Allocation pair = place("block", empty, trays(20));
  CHECK(pair.gpus == concat(tray_gpus(108, 110), tray_gpus(126, 144)));
  CHECK(pair.held_trays == ids(108, 144));
  // Racks 1 and 2 idle, the rest busy: 36 idle trays, but in two different aligned pairs: it waits.
  const ClusterState split = with_idle_trays(kEightRacks, {0, 18, 18, 0, 0, 0, 0, 0});
  CHECK(place("block", split, trays(20)).gpus == std::vector{-1});
  // Racks 1 to 3 idle: pair (2, 3) holds it: rack 3 whole, then trays 36, 37 of rack 2.
  const ClusterState aligned = with_idle_trays(kEightRacks, {0, 18, 18, 18, 0, 0, 0, 0});
  CHECK(place("block", aligned, trays(20)).gpus == concat(tray_gpus(36, 38), tray_gpus(54, 72)));
}

TEST_CASE("block stands for --exclusive=topo", "[block]") {
  const auto policy = nvlsim::make_policy("block", PolicyContext{kEightRacks});
  CHECK(policy->slurm_options(gpus(3)) == std::vector<std::string>{"--gpus=3", "--exclusive=topo"});
  CHECK(policy->slurm_options(trays(2)) ==
        std::vector<std::string>{"-N", "2", "--gpus-per-node=4", "--exclusive=topo"});
}

TEST_CASE("block rejects bad parameters and Slurm 22.05", "[block]") {
  const PolicyContext context{kEightRacks};
  CHECK_THROWS_AS(nvlsim::make_policy("block:min_block_nodes=0", context), nvlsim::InputError);
  CHECK_THROWS_AS(nvlsim::make_policy("block:min_block_nodes=19", context), nvlsim::InputError);
  CHECK_THROWS_AS(nvlsim::make_policy("block:segment=4", context), nvlsim::InputError);
  PolicyContext old = context;
  old.slurm_version = nvlsim::SlurmVersion::v22_05;
  CHECK_THROWS_WITH(nvlsim::make_policy("block", old), Catch::Contains("needs Slurm 23.11 or later"));
}

TEST_CASE("backfill under block keeps other jobs out of the head job's reserved racks", "[block]") {
  // Four racks (levels 18, 36, 72). Rack 0 runs a job ending at 100, rack 2 one ending at 10000.
  const ClusterShape shape{4, 18, 4};
  const auto policy = nvlsim::make_policy("block", PolicyContext{shape});
  ClusterState state(shape);
  const std::vector<nvlsim::RunningJob> running = {{0, 100, Allocation{tray_gpus(0, 18), ids(0, 18)}},
                                                   {1, 10000, Allocation{tray_gpus(36, 54), ids(36, 54)}}};
  for (const auto& job : running) state.apply(job.allocation);
  // Head: 25 trays, the 36-node level. Pairs (0, 1) and (2, 3) offer 18 each now: it waits; at 100 it
  // gets racks 0 and 1. Job 11 (long) goes to rack 3 (ties with rack 1, later wins) and starts; job 12
  // (long) then only has rack 1, reserved: it waits. Job 13 ends by 100, so it may use rack 1.
  const std::vector<nvlsim::QueuedJob> queue = {
      {10, trays(25), 500}, {11, gpus(4), 500}, {12, gpus(4), 500}, {13, gpus(4), 50}};
  const auto started = nvlsim::easy_backfill(0, state, queue, running, *policy);
  REQUIRE(started.size() == 2);
  CHECK(started[0].job == 11);
  CHECK(started[0].allocation.held_trays == ids(54, 72));
  CHECK(started[1].job == 13);
  CHECK(started[1].allocation.held_trays == ids(18, 36));
}
