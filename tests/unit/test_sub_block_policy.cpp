#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "models/input_error.hpp"
#include "placement_fixtures.hpp"
#include "schedulers/policy_registry.hpp"
#include "schedulers/sub_block_policy.hpp"

using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::PolicyContext;
using nvlsim::SegmentOptions;
using nvlsim::test::concat;
using nvlsim::test::ids;
using nvlsim::test::kEightRacks;
using nvlsim::test::tray_gpus;
using nvlsim::test::with_idle_trays;

namespace {

// The GPUs `spec` gives a job of `gpus`, or {-1} when it must wait.
std::vector<int> place(const std::string& spec, const ClusterState& state, int gpus) {
  const auto allocation = nvlsim::test::place_with(spec, state, gpus);
  if (!allocation) return {-1};
  CHECK(allocation->held_trays.empty());  // no exclusivity
  return allocation->gpus;
}

}  // namespace

TEST_CASE("segment sizes follow NVIDIA's rule, an override, or none", "[sub_block]") {
  const SegmentOptions rule{};
  const int base = 18;  // NVL72: one block of 18 nodes per rack
  CHECK(nvlsim::segment_nodes(rule, 512, 128, base) == 16);
  CHECK(nvlsim::segment_nodes(rule, 128, 32, base) == 16);
  CHECK(nvlsim::segment_nodes(rule, 100, 25, base) ==
        1);  // 4 does not divide 25: its largest divisor <= 4 is 1
  CHECK(nvlsim::segment_nodes(rule, 80, 20, base) == 4);
  // Jobs that fit in one block stay whole under the built-in table, as in Slurm without --segment ...
  CHECK(nvlsim::segment_nodes(rule, 64, 16, base) == 16);
  CHECK(nvlsim::segment_nodes(rule, 32, 8, base) == 8);
  CHECK(nvlsim::segment_nodes(rule, 31, 8, base) == 8);
  // ... but a table the user gives applies to every job.
  SegmentOptions table{};
  table.rules_for_small_jobs = true;
  CHECK(nvlsim::segment_nodes(table, 64, 16, base) == 4);
  CHECK(nvlsim::segment_nodes(table, 31, 8, base) == 1);
  CHECK(nvlsim::segment_nodes(SegmentOptions{0}, 128, 32, base) == 32);
  CHECK(nvlsim::segment_nodes(SegmentOptions{16}, 120, 30, base) == 15);  // largest divisor of 30 <= 16
  CHECK(nvlsim::segment_nodes(SegmentOptions{16}, 40, 10, base) == 10);   // a segment >= the job is the job
  CHECK(nvlsim::segment_nodes(SegmentOptions{4}, 48, 12, base) == 4);     // explicit: applies to small jobs
}

TEST_CASE("sub-block places 32 nodes as 18 + 14 unsegmented and 16 + 16 with segment=16", "[sub_block]") {
  const ClusterState empty(kEightRacks);
  // Unsegmented: 32 nodes need the 36-node level; every pair of racks offers 36, ties go to the later
  // pair (racks 6, 7). No rack holds 32, so the largest (rack 6, lowest index on ties) is taken whole,
  // then 14 trays of rack 7 (trays 126..139).
  CHECK(place("sub-block:segment=0", empty, 128) == tray_gpus(108, 140));
  CHECK(place("sub-block:segment=none", empty, 128) == tray_gpus(108, 140));
  // Two 16-node segments at the 18-node level: rack 7 (later on ties) takes trays 126..141; then rack 7
  // has 2 free, so the second goes to rack 6, trays 108..123.
  const auto expected = concat(tray_gpus(108, 124), tray_gpus(126, 142));
  CHECK(place("sub-block:segment=16", empty, 128) == expected);
  CHECK(place("sub-block", empty, 128) == expected);  // NVIDIA's rule gives 16 at 128 GPUs
}

TEST_CASE("sub-block starts a 48-GPU job across three racks only when segmented", "[sub_block]") {
  // Idle trays per rack: 0, 5, 0, 4, 0, 6, 0, 0; no rack has the 12 nodes.
  const ClusterState state = with_idle_trays(kEightRacks, {0, 5, 0, 4, 0, 6, 0, 0});
  // Segments of 4, each in the rack with the fewest idle trays that holds 4: rack 3 (4: trays 54..57),
  // rack 1 (5: trays 18..21), then rack 5 (rack 1 is down to 1: trays 90..93).
  const auto expected = concat(concat(tray_gpus(18, 22), tray_gpus(54, 58)), tray_gpus(90, 94));
  CHECK(place("sub-block:segment=4", state, 48) == expected);
  // The built-in table keeps a job that fits in one rack whole, so it waits; a user table of 4 does not.
  CHECK(place("sub-block", state, 48) == std::vector{-1});
  CHECK(place("sub-block:segment_rules=32>4/0>1", state, 48) == expected);
  CHECK(place("sub-block:segment=0", state, 48) == std::vector{-1});
}

TEST_CASE("sub-block never spans racks with a job of at most 18 unsegmented nodes", "[sub_block]") {
  // 20 idle trays in racks 0 and 1 together, but 10 in each: a 16-node job waits.
  const ClusterState state = with_idle_trays(kEightRacks, {10, 10, 0, 0, 0, 0, 0, 0});
  CHECK(place("sub-block:segment=0", state, 64) == std::vector{-1});
  CHECK(place("sub-block:segment=16", state, 64) == std::vector{-1});
  // 10 nodes fit: racks 0 and 1 tie at 10 idle, the later (rack 1, trays 18..27) wins.
  CHECK(place("sub-block:segment=0", state, 40) == tray_gpus(18, 28));
}

TEST_CASE("sub-block picks the rack with the fewest idle trays that suffice", "[sub_block]") {
  // Idle: rack 1 has 12, racks 2 and 4 have 10, rack 3 has 8, rack 0 all 18.
  const ClusterState state = with_idle_trays(kEightRacks, {18, 12, 10, 8, 10, 0, 0, 0});
  // 10 nodes: rack 3 is too small; racks 2 and 4 tie at 10, the later wins: trays 72..81.
  CHECK(place("sub-block:segment=0", state, 40) == tray_gpus(72, 82));
  // 11 nodes: only racks 0 (18) and 1 (12) hold it; rack 1 is tighter: trays 18..28.
  CHECK(place("sub-block:segment=0", state, 44) == tray_gpus(18, 29));
}

TEST_CASE("sub-block puts a job of less than a tray on the tightest tray of the tightest rack",
          "[sub_block]") {
  ClusterState state = with_idle_trays(kEightRacks, {18, 0, 0, 0, 0, 0, 0, 0});
  // Rack 1: free up tray 20 to 3 GPUs (81..83) and tray 25 to 2 GPUs (102, 103).
  state.release(nvlsim::Allocation{{81, 82, 83, 102, 103}, {}});
  // Rack 1 has 2 trays with room for 2 GPUs, rack 0 has 18: rack 1; its tightest tray is 25.
  CHECK(place("sub-block", state, 2) == std::vector{102, 103});
  // 3 GPUs: only tray 20 in rack 1 has room, still fewer than rack 0's 18 trays.
  CHECK(place("sub-block", state, 3) == std::vector{81, 82, 83});
}

TEST_CASE("sub-block gives a partial last tray and leaves its other GPUs free", "[sub_block]") {
  const ClusterState empty(kEightRacks);
  // 6 GPUs: 2 nodes in 1-node segments (rule for < 32 GPUs). Rack 7 wins the tie, then it is the
  // tightest rack (17 idle): trays 126, 127; tray 127 gives only GPUs 508, 509.
  CHECK(place("sub-block", empty, 6) == ids(504, 510));
}

TEST_CASE("sub-block spread=1 puts every segment in its own rack", "[sub_block]") {
  const ClusterState empty(kEightRacks);
  // Without spreading, rack 7 stays the tightest after each 1-node segment: trays 126..129.
  CHECK(place("sub-block:segment=1", empty, 16) == tray_gpus(126, 130));
  // Spread: rack 7, then 6, 5, 4 (each the later of the untouched racks): their first trays.
  const auto spread = place("sub-block:segment=1:spread=1", empty, 16);
  CHECK(spread == concat(concat(tray_gpus(72, 73), tray_gpus(90, 91)),
                         concat(tray_gpus(108, 109), tray_gpus(126, 127))));
}

TEST_CASE("sub-block consolidate=1 keeps all segments in one block of the job's level", "[sub_block]") {
  // Idle: rack 0: 4, rack 2: 4, rack 3: 8, rack 5: 18.
  const ClusterState state = with_idle_trays(kEightRacks, {4, 0, 4, 8, 0, 18, 0, 0});
  // 64 GPUs = 16 nodes in four 4-node segments. Unconsolidated: rack 2 (4, later than rack 0), rack 0,
  // then rack 3 twice.
  const auto scattered = concat(concat(tray_gpus(0, 4), tray_gpus(36, 40)), tray_gpus(54, 62));
  CHECK(place("sub-block:segment=4", state, 64) == scattered);
  // Consolidated: 16 nodes fit the 18-node level, so all in one rack offering 4 whole segments: rack 5.
  CHECK(place("sub-block:segment=4:consolidate=1", state, 64) == tray_gpus(90, 106));
}

TEST_CASE("sub-block rejects bad parameters", "[sub_block]") {
  const PolicyContext context{kEightRacks};
  CHECK_THROWS_AS(nvlsim::make_policy("sub-block:segment=-2", context), nvlsim::InputError);
  CHECK_THROWS_AS(nvlsim::make_policy("sub-block:spread=yes", context), nvlsim::InputError);
  CHECK_THROWS_AS(nvlsim::make_policy("sub-block:min_block_nodes=16", context), nvlsim::InputError);
}

TEST_CASE("a segment rule table from the spec replaces NVIDIA's rule", "[sub_block]") {
  const nvlsim::PolicyContext context{nvlsim::ClusterShape{8, 18, 4}};
  // 64 GPUs = 16 nodes. NVIDIA's rule gives 4-node segments; the table "64>8/0>1" gives 8-node ones.
  // Rack 0 has 8 idle trays, rack 1 has 12, the other racks none: 16 nodes fit only as 8 + 8.
  nvlsim::ClusterState state(context.shape);
  nvlsim::Allocation busy;
  for (int gpu = 8 * 4; gpu < 18 * 4; ++gpu) busy.gpus.push_back(gpu);  // rack 0: trays 8-17
  for (int gpu = (18 + 12) * 4; gpu < 8 * 72; ++gpu)
    busy.gpus.push_back(gpu);  // rack 1: trays 30-35, racks 2-7
  state.apply(busy);
  const auto table = nvlsim::make_policy("sub-block:segment_rules=64>8/0>1", context);
  const auto allocation = table->place(state, {64});
  REQUIRE(allocation);
  CHECK(allocation->gpus.front() == 0);                // starts in rack 0 (8 nodes) ...
  CHECK(allocation->gpus.back() == (18 + 8) * 4 - 1);  // ... and takes 8 of rack 1's 12
  // With 16-node segments (and no single rack holding 16 idle trays) the job waits.
  CHECK_FALSE(nvlsim::make_policy("sub-block:segment_rules=64>16/0>1", context)->place(state, {64}));
  CHECK_THROWS_AS(nvlsim::make_policy("sub-block:segment_rules=64-8", context), nvlsim::InputError);
}

TEST_CASE("the built-in table falls back to whole racks when its segments cannot fit the machine",
          "[sub_block]") {
  const nvlsim::PolicyContext context{ClusterShape{8, 18, 4}};
  const ClusterState empty(context.shape);
  // 576 GPUs = 144 nodes: NVIDIA's 16-node segments would need 9, and each rack holds one; 18-node
  // segments (one per rack) fit.
  const auto all = nvlsim::make_policy("sub-block", context)->place(empty, {576});
  REQUIRE(all);
  CHECK(all->gpus.size() == 576);
  // An explicit segment is the user's word: no fallback, so the job cannot be placed.
  CHECK_FALSE(nvlsim::make_policy("sub-block:segment=16", context)->place(empty, {576}));
  // 512 GPUs = 128 nodes = 8 segments of 16: the table's segments fit, one per rack.
  const auto most = nvlsim::make_policy("sub-block", context)->place(empty, {512});
  REQUIRE(most);
  for (int rack = 0; rack < 8; ++rack)
    CHECK(std::count_if(most->gpus.begin(), most->gpus.end(), [rack](int g) { return g / 72 == rack; }) ==
          64);
}

TEST_CASE("a job class's segment replaces the built-in table, not a spec's segment or table", "[sub_block]") {
  const PolicyContext context{kEightRacks};
  // 8 idle trays in each of racks 0-3: a 128-GPU job (32 nodes) fits only in 8-node segments.
  const ClusterState state = with_idle_trays(kEightRacks, {8, 8, 8, 8, 0, 0, 0, 0});
  nvlsim::JobRequest request{128};
  CHECK_FALSE(nvlsim::make_policy("sub-block", context)->place(state, request));  // the table: 16 nodes
  request.segment_nodes = 8;  // a class with "segment_nodes": 8
  const auto placed = nvlsim::make_policy("sub-block", context)->place(state, request);
  REQUIRE(placed);
  CHECK(placed->gpus.size() == 128);
  CHECK_FALSE(nvlsim::make_policy("sub-block:segment=16", context)->place(state, request));
  CHECK_FALSE(nvlsim::make_policy("sub-block:segment_rules=0>16", context)->place(state, request));
  // As with the built-in table, a job that fits in one base block stays one segment: 16 nodes in a rack.
  request = nvlsim::JobRequest{64};
  request.segment_nodes = 4;
  CHECK_FALSE(nvlsim::make_policy("sub-block", context)->place(state, request));
}
