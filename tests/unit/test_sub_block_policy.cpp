// `sub-block`: Slurm 24.11's topology/block without exclusivity, `-N` jobs in segments. Expected trays
// follow the rules docs/policies.md states; tests/slurm_oracle checks the same rules against the real Slurm.

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
using nvlsim::JobRequest;
using nvlsim::PolicyContext;
using nvlsim::RequestShape;
using nvlsim::SegmentOptions;
using nvlsim::test::concat;
using nvlsim::test::ids;
using nvlsim::test::kEightRacks;
using nvlsim::test::tray_gpus;
using nvlsim::test::with_idle_trays;

namespace {

JobRequest gpus(int count) {
  return {count, RequestShape::gpus};
}

JobRequest trays(int count) {
  return {4 * count, RequestShape::nodes};
}

// The GPUs `spec` gives the request, or {-1} when it must wait.
std::vector<int> place(const std::string& spec, const ClusterState& state, JobRequest request) {
  const auto allocation = nvlsim::make_policy(spec, PolicyContext{state.shape()})->place(state, request);
  if (!allocation) return {-1};
  CHECK(allocation->held_trays.empty());  // no exclusivity
  return allocation->gpus;
}

}  // namespace

TEST_CASE("segments follow NVIDIA's table, an override, or none", "[sub_block]") {
  const SegmentOptions table{};
  const int base = 18;  // NVL72: one block of 18 nodes per rack
  CHECK(nvlsim::asked_segment(table, 512, 128, base) == 16);
  CHECK(nvlsim::asked_segment(table, 128, 32, base) == 16);
  CHECK(nvlsim::asked_segment(table, 100, 25, base) == 4);  // Slurm refuses it: 4 does not divide 25
  CHECK(nvlsim::asked_segment(table, 80, 20, base) == 4);
  // Jobs that fit in one block ask no segment under the built-in table, as in Slurm without --segment ...
  CHECK(nvlsim::asked_segment(table, 64, 16, base) == 0);
  CHECK(nvlsim::asked_segment(table, 32, 8, base) == 0);
  // ... but a table the user gives applies to every job.
  SegmentOptions mine{};
  mine.rules_for_small_jobs = true;
  CHECK(nvlsim::asked_segment(mine, 64, 16, base) == 4);
  CHECK(nvlsim::asked_segment(mine, 31, 8, base) == 1);
  CHECK(nvlsim::asked_segment(SegmentOptions{0}, 128, 32, base) == 0);
  CHECK(nvlsim::asked_segment(SegmentOptions{16}, 120, 30, base) == 16);  // refused: 16 does not divide 30
  CHECK(nvlsim::asked_segment(SegmentOptions{16}, 40, 10, base) == 0);    // a job of at most S nodes: none
  CHECK(nvlsim::asked_segment(SegmentOptions{4}, 48, 12, base) == 4);
}

TEST_CASE("Slurm refuses a segment that does not divide the job or exceeds a base block", "[sub_block]") {
  CHECK(nvlsim::segment_refusal(12, 36, 18).empty());
  CHECK(nvlsim::segment_refusal(0, 35, 18).empty());
  CHECK_THAT(nvlsim::segment_refusal(16, 36, 18), Catch::Contains("does not divide the job's 36 nodes"));
  CHECK_THAT(nvlsim::segment_refusal(20, 40, 18), Catch::Contains("larger than a base block of 18"));
  CHECK_THAT(nvlsim::segment_refusal(16, 36, 18),
             Catch::StartsWith("Requested topology configuration is not available"));
  const auto policy = nvlsim::make_policy("sub-block:segment=16", PolicyContext{kEightRacks});
  CHECK_FALSE(policy->refusal(trays(36)).empty());
  CHECK(policy->refusal(trays(32)).empty());
  CHECK(place("sub-block:segment=16", ClusterState(kEightRacks), trays(36)) == std::vector{-1});
}

TEST_CASE("round=1 takes the largest segment Slurm accepts instead", "[sub_block]") {
  const ClusterState empty(kEightRacks);
  const auto rounded = nvlsim::make_policy("sub-block:segment=16:round=1", PolicyContext{kEightRacks});
  // 36 nodes: the largest divisor of 36 not above 16 is 12.
  CHECK(rounded->refusal(trays(36)).empty());
  CHECK(rounded->slurm_options(trays(36)) ==
        std::vector<std::string>{"-N", "36", "--gpus-per-node=4", "--segment=12"});
  CHECK(place("sub-block:segment=16:round=1", empty, trays(36)).size() == 144);
}

TEST_CASE("sub-block places 32 nodes as 18 + 14 unsegmented and 16 + 16 with segment=16", "[sub_block]") {
  const ClusterState empty(kEightRacks);
  // Unsegmented: the 36-node level; pairs tie, the later (racks 6, 7) wins. No rack holds 32, so the
  // larger (the later on ties: rack 7) whole, then the smallest holding the 14 left: rack 6, trays 108..121.
  CHECK(place("sub-block:segment=0", empty, trays(32)) == concat(tray_gpus(108, 122), tray_gpus(126, 144)));
  // Two 16-node segments at the 18-node level: rack 7 (later on ties) takes trays 126..141; then rack 7
  // has 2 free, so the second goes to rack 6, trays 108..123.
  const auto expected = concat(tray_gpus(108, 124), tray_gpus(126, 142));
  CHECK(place("sub-block:segment=16", empty, trays(32)) == expected);
  CHECK(place("sub-block", empty, trays(32)) == expected);  // NVIDIA's table gives 16 at 128 GPUs
}

TEST_CASE("sub-block starts a 12-tray job across three racks only when segmented", "[sub_block]") {
  // Idle trays per rack: 0, 5, 0, 4, 0, 6, 0, 0; no rack has the 12 nodes.
  const ClusterState state = with_idle_trays(kEightRacks, {0, 5, 0, 4, 0, 6, 0, 0});
  // Segments of 4, each in the rack with the fewest idle trays that holds 4: rack 3 (4: trays 54..57),
  // rack 1 (5: trays 18..21), then rack 5 (rack 1 is down to 1: trays 90..93).
  const auto expected = concat(concat(tray_gpus(18, 22), tray_gpus(54, 58)), tray_gpus(90, 94));
  CHECK(place("sub-block:segment=4", state, trays(12)) == expected);
  // The built-in table keeps a job that fits in one rack whole, so it waits; a user table of 4 does not.
  CHECK(place("sub-block", state, trays(12)) == std::vector{-1});
  CHECK(place("sub-block:segment_rules=32>4/0>1", state, trays(12)) == expected);
  CHECK(place("sub-block:segment=0", state, trays(12)) == std::vector{-1});
}

TEST_CASE("sub-block picks the rack with the fewest usable trays that suffice", "[sub_block]") {
  // Idle: rack 1 has 12, racks 2 and 4 have 10, rack 3 has 8, rack 0 all 18.
  const ClusterState state = with_idle_trays(kEightRacks, {18, 12, 10, 8, 10, 0, 0, 0});
  // 10 nodes: rack 3 is too small; racks 2 and 4 tie at 10, the later wins: trays 72..81.
  CHECK(place("sub-block", state, trays(10)) == tray_gpus(72, 82));
  // 11 nodes: only racks 0 (18) and 1 (12) hold it; rack 1 is tighter: trays 18..28.
  CHECK(place("sub-block", state, trays(11)) == tray_gpus(18, 29));
  // 10 idle trays in racks 0 and 1 each, the rest busy: a 16-node job waits, it never spans racks.
  const ClusterState halves = with_idle_trays(kEightRacks, {10, 10, 0, 0, 0, 0, 0, 0});
  CHECK(place("sub-block", halves, trays(16)) == std::vector{-1});
}

TEST_CASE("sub-block puts a GPU count on the first tray that holds it, in the tightest rack", "[sub_block]") {
  ClusterState state = with_idle_trays(kEightRacks, {18, 0, 0, 0, 0, 0, 0, 0});
  // Rack 1: free tray 20 down to 3 GPUs (81..83) and tray 25 to 2 (102, 103).
  state.release(nvlsim::Allocation{{81, 82, 83, 102, 103}, {}});
  // Every tray with 2 free GPUs weighs the same; rack 1 has 2 usable trays against rack 0's 18, and its
  // first tray holding the job is tray 20.
  CHECK(place("sub-block", state, gpus(2)) == std::vector{81, 82});
  // 3 GPUs: trays with 3 free weigh least (tray 25 weighs more); rack 1 is still the tightest.
  CHECK(place("sub-block", state, gpus(3)) == std::vector{81, 82, 83});
}

TEST_CASE("sub-block gives a partial last tray and leaves its other GPUs free", "[sub_block]") {
  // 6 GPUs stay in one rack: rack 7 wins the tie; trays 126 (4 GPUs) and 127 (2: GPUs 508, 509).
  CHECK(place("sub-block", ClusterState(kEightRacks), gpus(6)) == ids(504, 510));
}

TEST_CASE("sub-block spread=1 puts every segment in its own rack", "[sub_block]") {
  const ClusterState empty(kEightRacks);
  // Without spreading, rack 7 stays the tightest after each 1-node segment: trays 126..129.
  CHECK(place("sub-block:segment=1", empty, trays(4)) == tray_gpus(126, 130));
  // Spread: rack 7, then 6, 5, 4 (each the later of the untouched racks): their first trays.
  CHECK(
      place("sub-block:segment=1:spread=1", empty, trays(4)) ==
      concat(concat(tray_gpus(72, 73), tray_gpus(90, 91)), concat(tray_gpus(108, 109), tray_gpus(126, 127))));
}

TEST_CASE("sub-block consolidate=1 keeps all segments in one block of the job's level", "[sub_block]") {
  // Idle: rack 0: 4, rack 2: 4, rack 3: 8, rack 5: 18.
  const ClusterState state = with_idle_trays(kEightRacks, {4, 0, 4, 8, 0, 18, 0, 0});
  // 16 nodes in four 4-node segments. Unconsolidated: rack 2 (4, later than rack 0), rack 0, then rack 3
  // twice.
  CHECK(place("sub-block:segment=4", state, trays(16)) ==
        concat(concat(tray_gpus(0, 4), tray_gpus(36, 40)), tray_gpus(54, 62)));
  // Consolidated: 16 nodes fit the 18-node level, so all in one rack holding them: rack 5.
  CHECK(place("sub-block:segment=4:consolidate=1", state, trays(16)) == tray_gpus(90, 106));
}

TEST_CASE("a segment rule table from the spec replaces NVIDIA's", "[sub_block]") {
  // Rack 0 has 8 idle trays, rack 1 has 12, the other racks none: 16 nodes fit only as 8 + 8.
  const ClusterState state = with_idle_trays(kEightRacks, {8, 12, 0, 0, 0, 0, 0, 0});
  CHECK(place("sub-block:segment_rules=64>8/0>1", state, trays(16)) ==
        concat(tray_gpus(0, 8), tray_gpus(18, 26)));
  // With 16-node segments (and no rack holding 16 idle trays) the job waits.
  CHECK(place("sub-block:segment_rules=64>16/0>1", state, trays(16)) == std::vector{-1});
  CHECK_THROWS_AS(nvlsim::make_policy("sub-block:segment_rules=64-8", PolicyContext{kEightRacks}),
                  nvlsim::InputError);
}

TEST_CASE("the built-in table's segments that cannot fit the machine are refused unless rounded",
          "[sub_block]") {
  const ClusterState empty(kEightRacks);
  // 144 nodes: NVIDIA's 16-node segments would need 9 racks; the machine has 8.
  CHECK(place("sub-block", empty, trays(144)) == std::vector{-1});
  // Rounded: whole racks, 8 segments of 18.
  CHECK(place("sub-block:round=1", empty, trays(144)).size() == 576);
  // An explicit segment is the user's word: no fallback.
  CHECK(place("sub-block:segment=16:round=1", empty, trays(144)) == std::vector{-1});
  // 128 nodes = 8 segments of 16: one per rack.
  const auto most = place("sub-block", empty, trays(128));
  REQUIRE(most.size() == 512);
  for (int rack = 0; rack < 8; ++rack)
    CHECK(std::count_if(most.begin(), most.end(), [rack](int g) { return g / 72 == rack; }) == 64);
}

TEST_CASE("a job class's segment replaces the built-in table, not a spec's segment or table", "[sub_block]") {
  // 8 idle trays in each of racks 0-3: a 32-tray job fits only in 8-node segments.
  const ClusterState state = with_idle_trays(kEightRacks, {8, 8, 8, 8, 0, 0, 0, 0});
  JobRequest request = trays(32);
  CHECK(place("sub-block", state, request) == std::vector{-1});  // the table: 16 nodes
  request.segment_nodes = 8;                                     // a class with "segment_nodes": 8
  CHECK(place("sub-block", state, request).size() == 128);
  CHECK(place("sub-block:segment=16", state, request) == std::vector{-1});
  CHECK(place("sub-block:segment_rules=0>16", state, request) == std::vector{-1});
  // As with the built-in table, a job that fits in one base block asks no segment: 16 nodes in a rack.
  request = trays(16);
  request.segment_nodes = 4;
  CHECK(place("sub-block", state, request) == std::vector{-1});
}

TEST_CASE("sub-block stands for --segment on whole-tray jobs only", "[sub_block]") {
  const auto policy = nvlsim::make_policy("sub-block", PolicyContext{kEightRacks});
  CHECK(policy->slurm_options(trays(32)) ==
        std::vector<std::string>{"-N", "32", "--gpus-per-node=4", "--segment=16"});
  CHECK(policy->slurm_options(trays(8)) == std::vector<std::string>{"-N", "8", "--gpus-per-node=4"});
  CHECK(policy->slurm_options(gpus(130)) == std::vector<std::string>{"--gpus=130"});
}

TEST_CASE("sub-block rejects bad parameters and Slurm 22.05", "[sub_block]") {
  const PolicyContext context{kEightRacks};
  CHECK_THROWS_AS(nvlsim::make_policy("sub-block:segment=-2", context), nvlsim::InputError);
  CHECK_THROWS_AS(nvlsim::make_policy("sub-block:spread=yes", context), nvlsim::InputError);
  CHECK_THROWS_AS(nvlsim::make_policy("sub-block:min_block_nodes=16", context), nvlsim::InputError);
  PolicyContext old = context;
  old.slurm_version = nvlsim::SlurmVersion::v22_05;
  CHECK_THROWS_WITH(nvlsim::make_policy("sub-block", old), Catch::Contains("needs Slurm 23.11 or later"));
}
