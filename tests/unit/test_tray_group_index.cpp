// The counts per group of trays a cluster state keeps for a policy (TrayGroupIndex,
// ClusterState::index_groups) against the trays, as jobs, cores and failures change them.

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "random_steps.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/tray_group_index.hpp"

using nvlsim::Allocation;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::TrayGroups;
using nvlsim::TrayRun;

namespace {

constexpr ClusterShape kEightRacks{8, 18, 4};  // 144 trays: three 64-bit words of them

TrayGroups groups_of(std::vector<TrayRun> runs) {
  return std::make_shared<const std::vector<TrayRun>>(std::move(runs));
}

// Per group and level, the count and the totals, and the tightest group for every level and every fewest
// count, taken tray by tray.
void require_counts_match(const ClusterState& state) {
  const nvlsim::TrayGroupIndex& index = state.tray_groups();
  REQUIRE_FALSE(index.empty());
  const std::vector<TrayRun>& groups = *index.groups();
  int largest = 0;
  for (const TrayRun& g : groups) largest = std::max(largest, g.end_tray - g.first_tray);
  for (int k = 1; k <= state.shape().gpus_per_tray; ++k) {
    std::vector<int> count(groups.size(), 0);
    int total = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      for (int tray = groups[g].first_tray; tray < groups[g].end_tray; ++tray)
        count[g] += state.free_gpus_in_tray(tray) >= k && state.free_cpus_in_tray(tray) > 0;
      REQUIRE(index.count(static_cast<int>(g), k) == count[g]);
      total += count[g];
    }
    REQUIRE(index.total(k) == total);
    for (int fewest = 1; fewest <= largest + 1; ++fewest) {
      int want = -1;
      for (std::size_t g = 0; g < groups.size(); ++g)
        if (count[g] >= fewest && (want < 0 || count[g] < count[static_cast<std::size_t>(want)]))
          want = static_cast<int>(g);
      INFO("level " << k << ", fewest " << fewest);
      REQUIRE(index.tightest(k, fewest) == want);
    }
  }
}

}  // namespace

TEST_CASE("counts per group of trays follow random jobs, cores taken and failures", "[cluster_state]") {
  // Uneven groups with gaps between them, two across a word boundary; trays of 3 cores, which jobs take
  // whole; and more groups than a word has bits.
  ClusterShape few_cores = kEightRacks;
  few_cores.cpus_per_tray = 3;
  ClusterShape many_groups = kEightRacks;
  many_groups.domains = 9;
  const std::vector<TrayRun> uneven{{0, 5}, {5, 37}, {40, 41}, {60, 130}, {131, 144}};
  std::vector<TrayRun> small;
  for (int tray = 0; tray + 2 <= many_groups.trays(); tray += 2)
    small.push_back({tray, tray + 1 + tray % 3 % 2});
  REQUIRE(small.size() > 64);
  unsigned seed = 1;
  for (const auto& [shape, runs] :
       {std::pair{kEightRacks, uneven}, {few_cores, uneven}, {many_groups, small}}) {
    INFO(shape.cpus_per_tray << " cores per tray, " << runs.size() << " groups");
    nvlsim::test::random_machine(shape, seed++, require_counts_match, groups_of(runs));
  }
}

TEST_CASE("counts per group start from a busy machine's trays and follow shards", "[cluster_state][shard]") {
  ClusterState state(kEightRacks);
  // Trays 0..59 and 130..143 full, tray 64 with 3 free GPUs.
  std::vector<int> busy;
  for (int tray = 0; tray < 144; ++tray) {
    if (tray >= 60 && tray < 130) continue;
    for (int gpu = 4 * tray; gpu < 4 * tray + 4; ++gpu) busy.push_back(gpu);
  }
  busy.push_back(4 * 64 + 1);
  std::sort(busy.begin(), busy.end());
  state.apply(Allocation{busy, {}});
  state.index_groups(groups_of({{50, 66}, {66, 144}}));
  CHECK(state.tray_groups().count(0, 4) == 5);
  CHECK(state.tray_groups().count(0, 3) == 6);
  CHECK(state.tray_groups().tightest(4, 1) == 0);
  CHECK(state.tray_groups().tightest(4, 6) == 1);
  require_counts_match(state);
  // A GPU holding shards is busy for whole-GPU jobs: its tray drops a level.
  Allocation shard{{4 * 61}, {}};
  shard.shards = 1;
  state.apply(shard);
  CHECK(state.tray_groups().count(0, 4) == 4);
  CHECK(state.tray_groups().count(0, 3) == 6);
  require_counts_match(state);
  state.release(shard);
  CHECK(state.tray_groups().count(0, 4) == 5);
  state.index_groups(nullptr);
  CHECK(state.tray_groups().empty());
  CHECK(state.tray_groups().tightest(1, 1) == -1);
}

TEST_CASE("counts per group refuse groups that overlap, are empty, leave the machine or go backwards",
          "[cluster_state]") {
  ClusterState state(kEightRacks);
  for (const std::vector<TrayRun>& bad :
       {std::vector<TrayRun>{{0, 10}, {9, 20}}, std::vector<TrayRun>{{5, 5}},
        std::vector<TrayRun>{{140, 145}}, std::vector<TrayRun>{{20, 30}, {0, 10}}})
    CHECK_THROWS_AS(state.index_groups(groups_of(bad)), std::invalid_argument);
}
