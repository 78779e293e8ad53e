#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "random_steps.hpp"
#include "schedulers/cluster_state.hpp"

using nvlsim::Allocation;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::TrayRun;

namespace {

// Two NVL72 racks: trays 0..17 (GPUs 0..71) in domain 0, trays 18..35 (GPUs 72..143) in domain 1.
constexpr ClusterShape kTwoRacks{2, 18, 4};

void require_counters(const ClusterState& state, int tray0, int tray1, int domain0, int domain1, int total) {
  CHECK(state.free_gpus_in_tray(0) == tray0);
  CHECK(state.free_gpus_in_tray(1) == tray1);
  CHECK(state.free_gpus_in_domain(0) == domain0);
  CHECK(state.free_gpus_in_domain(1) == domain1);
  CHECK(state.free_gpus() == total);
}

}  // namespace

TEST_CASE("a new cluster state has every GPU free", "[cluster_state]") {
  const ClusterState state(kTwoRacks);
  CHECK(state.free_gpus() == 144);
  CHECK(state.free_gpus_in_domain(0) == 72);
  CHECK(state.free_gpus_in_domain(1) == 72);
  for (int tray = 0; tray < 36; ++tray) {
    CHECK(state.free_gpus_in_tray(tray) == 4);
    CHECK(state.tray_idle(tray));
    CHECK_FALSE(state.tray_held(tray));
  }
  for (int gpu = 0; gpu < 144; ++gpu) CHECK(state.gpu_free(gpu));
}

TEST_CASE("apply and release move the tray, domain and total counters", "[cluster_state]") {
  ClusterState state(kTwoRacks);
  // GPUs 1, 2 are in tray 0 (GPUs 0..3), 5 in tray 1, 72 is the first GPU of domain 1 (tray 18).
  const Allocation job{{1, 2, 5, 72}, {}};
  state.apply(job);
  require_counters(state, 2, 3, 72 - 3, 72 - 1, 144 - 4);
  CHECK(state.free_gpus_in_tray(18) == 3);
  CHECK_FALSE(state.gpu_free(1));
  CHECK(state.gpu_free(0));
  CHECK_FALSE(state.tray_idle(0));
  CHECK(state.tray_idle(2));

  state.release(job);
  require_counters(state, 4, 4, 72, 72, 144);
  CHECK(state.tray_idle(0));
}

TEST_CASE("a held tray has no free GPU until every holder releases it", "[cluster_state]") {
  ClusterState state(kTwoRacks);
  // Runs on GPU 0 and closes trays 0 and 1: tray 1's four unallocated GPUs stop being free too.
  const Allocation exclusive{{0}, {0, 1}};
  state.apply(exclusive);
  require_counters(state, 0, 0, 72 - 8, 72, 144 - 8);
  CHECK(state.tray_held(1));
  CHECK_FALSE(state.gpu_free(4));
  CHECK_FALSE(state.tray_idle(1));

  // A second holder of tray 1 keeps it closed after the first is released.
  const Allocation second_holder{{}, {1}};
  state.apply(second_holder);
  state.release(exclusive);
  require_counters(state, 4, 0, 72 - 4, 72, 144 - 4);
  CHECK(state.tray_held(1));
  state.release(second_holder);
  require_counters(state, 4, 4, 72, 72, 144);
  CHECK_FALSE(state.tray_held(1));
}

TEST_CASE("a down GPU is never free, even after its job is released", "[cluster_state]") {
  ClusterState state(kTwoRacks);
  state.set_down(73, true);  // tray 18, domain 1
  CHECK(state.gpu_down(73));
  CHECK_FALSE(state.gpu_free(73));
  CHECK(state.free_gpus_in_tray(18) == 3);
  CHECK(state.free_gpus_in_domain(1) == 71);
  CHECK_FALSE(state.tray_idle(18));
  CHECK_THROWS_AS(state.apply(Allocation{{73}, {}}), std::logic_error);
  state.set_down(73, false);
  CHECK(state.free_gpus_in_tray(18) == 4);
  CHECK(state.free_gpus() == 144);

  // A busy GPU going down changes no counter (it was not free); its release then leaves it unfree.
  const Allocation job{{8}, {}};  // tray 2
  state.apply(job);
  state.set_down(8, true);
  CHECK(state.free_gpus_in_tray(2) == 3);
  state.release(job);
  CHECK(state.free_gpus_in_tray(2) == 3);
  CHECK(state.free_gpus() == 143);
}

TEST_CASE("apply rejects a GPU that is not free and leaves the state untouched", "[cluster_state]") {
  ClusterState state(kTwoRacks);
  state.apply(Allocation{{3}, {}});
  const Allocation* bad = nullptr;
  // GPU 3 is busy; GPU 6 listed twice would be taken twice. Either way GPUs checked before the bad one
  // must not stay marked.
  const Allocation busy{{1, 2, 3}, {}};
  const Allocation twice{{6, 6}, {}};
  SECTION("busy") {
    bad = &busy;
  }
  SECTION("listed twice") {
    bad = &twice;
  }
  CHECK_THROWS_AS(state.apply(*bad), std::logic_error);
  require_counters(state, 3, 4, 71, 72, 143);
  for (int gpu : {1, 2, 6}) CHECK(state.gpu_free(gpu));

  CHECK_THROWS_AS(state.apply(Allocation{{}, {36}}), std::logic_error);  // trays are 0..35
  state.apply(Allocation{{}, {1}});  // holding tray 1 closes its GPUs 4..7
  CHECK_THROWS_AS(state.apply(Allocation{{4}, {}}), std::logic_error);
}

TEST_CASE("release rejects what was not applied", "[cluster_state]") {
  ClusterState state(kTwoRacks);
  CHECK_THROWS_AS(state.release(Allocation{{0}, {}}), std::logic_error);
  CHECK_THROWS_AS(state.release(Allocation{{}, {0}}), std::logic_error);
  CHECK(state.free_gpus() == 144);
}

namespace {

// Eight racks: 144 trays, so tray sets span three 64-bit words and runs can cross word boundaries.
constexpr ClusterShape kEightRacks{8, 18, 4};

// The runs of trays with at least `free` free GPUs and a core, as the state gives them.
std::vector<TrayRun> runs_with_at_least(const ClusterState& state, int free) {
  std::vector<TrayRun> runs;
  state.for_each_run_with_at_least(free, [&](int first, int end) { runs.push_back({first, end}); });
  return runs;
}

// The indexes by free count against counts taken GPU by GPU.
void require_indexes_match(const ClusterState& state) {
  const ClusterShape& shape = state.shape();
  std::vector<int> first_with(shape.gpus_per_tray + 1, -1);
  std::vector<int> domains(shape.gpus_per_domain() + 1, 0);
  std::vector<TrayRun> idle_runs;
  int idle_with_cpus = 0;
  for (int tray = 0; tray < shape.trays(); ++tray) {
    int free = 0;
    for (int gpu = shape.first_gpu_of_tray(tray); gpu < shape.first_gpu_of_tray(tray + 1); ++gpu)
      free += state.gpu_free(gpu);
    REQUIRE(state.free_gpus_in_tray(tray) == free);
    if (first_with[free] < 0) first_with[free] = tray;
    if (free == shape.gpus_per_tray) {
      idle_with_cpus += state.free_cpus_in_tray(tray) < shape.cpus_per_tray;
      if (idle_runs.empty() || idle_runs.back().end_tray != tray) idle_runs.push_back({tray, tray});
      idle_runs.back().end_tray = tray + 1;
    }
  }
  for (int d = 0; d < shape.domains; ++d) {
    ++domains[state.free_gpus_in_domain(d)];
    int idle = 0;
    for (int t = shape.first_tray_of_domain(d); t < shape.first_tray_of_domain(d) + shape.trays_per_domain;
         ++t)
      idle += state.tray_idle(t);
    REQUIRE(state.idle_trays_in_domain(d) == idle);
  }
  for (int k = 0; k <= shape.gpus_per_tray; ++k) REQUIRE(state.first_tray_with_free(k) == first_with[k]);
  for (int f = 0; f <= shape.gpus_per_domain(); ++f) REQUIRE(state.domains_with_free(f) == domains[f]);
  std::vector<int> by_idle(shape.trays_per_domain + 1, 0);
  for (int d = 0; d < shape.domains; ++d) ++by_idle[state.idle_trays_in_domain(d)];
  for (int idle = 0; idle <= shape.trays_per_domain; ++idle)
    REQUIRE(state.domains_with_idle_trays(idle) == by_idle[idle]);
  for (int d = 0; d < shape.domains; ++d) {
    for (int k = 0; k <= shape.gpus_per_tray; ++k) {
      int count = 0;
      for (int t = shape.first_tray_of_domain(d); t < shape.first_tray_of_domain(d + 1); ++t)
        count += state.free_gpus_in_tray(t) >= k;
      REQUIRE(state.trays_in_domain_with_at_least(d, k) == count);
    }
  }
  REQUIRE(state.idle_tray_runs() == idle_runs);
  REQUIRE(state.idle_trays_with_cpus_used() == idle_with_cpus);
  int with_free = 0;
  for (int tray = 0; tray < shape.trays(); ++tray) with_free += state.free_gpus_in_tray(tray) > 0;
  REQUIRE(state.trays_with_free_gpus() == with_free);
  // Runs of trays with k free GPUs and a core, and the trays with cores in use in some ranges.
  for (int k = 1; k <= shape.gpus_per_tray; ++k) {
    std::vector<std::pair<int, int>> want, got;
    for (int tray = 0; tray < shape.trays(); ++tray) {
      if (state.free_gpus_in_tray(tray) < k || state.free_cpus_in_tray(tray) == 0) continue;
      if (want.empty() || want.back().second != tray) want.emplace_back(tray, tray);
      want.back().second = tray + 1;
    }
    state.for_each_run_with_at_least(k, [&](int first, int end) { got.emplace_back(first, end); });
    REQUIRE(got == want);
    // And every tray with at least k free GPUs, core or not.
    std::vector<int> trays_want, trays_got;
    for (int tray = 0; tray < shape.trays(); ++tray)
      if (state.free_gpus_in_tray(tray) >= k) trays_want.push_back(tray);
    state.for_each_tray_with_at_least(k, [&](int tray) { trays_got.push_back(tray); });
    REQUIRE(trays_got == trays_want);
  }
  for (const auto& [first, end] : {std::pair{0, shape.trays()}, std::pair{1, 63}, std::pair{63, 130},
                                   std::pair{64, 128}, std::pair{70, 71}}) {
    std::vector<int> want, got;
    for (int tray = first; tray < end; ++tray)
      if (state.free_cpus_in_tray(tray) < shape.cpus_per_tray) want.push_back(tray);
    state.for_each_tray_with_cores_used(first, end, [&](int tray) { got.push_back(tray); });
    REQUIRE(got == want);
    // Trays by free count with a core, counted from each min_free up (the lower counts left as they were).
    for (int min_free = 1; min_free <= shape.gpus_per_tray; ++min_free) {
      std::vector<int> counted(shape.gpus_per_tray + 1, 0), by_free(shape.gpus_per_tray + 1, 7);
      for (int tray = first; tray < end; ++tray)
        if (state.free_gpus_in_tray(tray) >= min_free && state.free_cpus_in_tray(tray) > 0)
          ++counted[state.free_gpus_in_tray(tray)];
      for (int k = 0; k <= shape.gpus_per_tray; ++k) counted[k] += 7;
      const TrayRun run{first, end};
      state.count_trays_with_cores_by_free({&run, 1}, min_free, by_free);
      REQUIRE(by_free == counted);
    }
  }
}

}  // namespace

TEST_CASE("free trays are indexed by free count, and runs of them cross word boundaries", "[cluster_state]") {
  ClusterState state(kEightRacks);
  CHECK(state.first_tray_with_free(4) == 0);
  CHECK(state.first_tray_with_free(0) == -1);
  CHECK(state.domains_with_free(72) == 8);
  CHECK(runs_with_at_least(state, 1) == std::vector<TrayRun>{{0, 144}});

  // Trays 0..59, 71 and 130..143 full: the free trays 60..70 span words 0 and 1, 72..129 words 1 and 2.
  std::vector<int> busy;
  for (int tray = 0; tray < 144; ++tray) {
    if (tray >= 60 && tray < 130 && tray != 71) continue;
    for (int gpu = 4 * tray; gpu < 4 * tray + 4; ++gpu) busy.push_back(gpu);
  }
  busy.push_back(4 * 64 + 1);  // tray 64 keeps 3 free
  std::sort(busy.begin(), busy.end());
  state.apply(Allocation{busy, {}});
  CHECK(state.first_tray_with_free(3) == 64);
  CHECK(state.first_tray_with_free(4) == 60);
  CHECK(state.first_tray_with_free(0) == 0);
  CHECK(runs_with_at_least(state, 1) == std::vector<TrayRun>{{60, 71}, {72, 130}});
  CHECK(state.idle_tray_runs() == std::vector<TrayRun>{{60, 64}, {65, 71}, {72, 130}});
  require_indexes_match(state);
}

TEST_CASE("the indexes by free count follow random applies, releases and failures", "[cluster_state]") {
  // Runs of trays with a free GPU, of idle trays and of trays with k free GPUs and a core, and the trays
  // with cores in use, are checked too (require_indexes_match); on trays of 144 cores and of 3, where
  // jobs take every free core of a tray.
  ClusterShape few_cores = kEightRacks;
  few_cores.cpus_per_tray = 3;
  for (const ClusterShape& shape : {kEightRacks, few_cores}) {
    INFO(shape.cpus_per_tray << " cores per tray");
    ClusterState state(shape);
    std::mt19937 rng(12345);
    const auto new_job = [&state, &shape](int op, std::mt19937& r) -> std::optional<Allocation> {
      // A job on up to 20 free GPUs, sometimes holding the trays around its first GPU.
      std::vector<int> free;
      for (int gpu = 0; gpu < shape.gpus(); ++gpu)
        if (state.gpu_free(gpu)) free.push_back(gpu);
      if (free.empty()) return std::nullopt;
      std::shuffle(free.begin(), free.end(), r);
      free.resize(std::min<std::size_t>(free.size(), std::uniform_int_distribution<int>(1, 20)(r)));
      std::sort(free.begin(), free.end());
      Allocation a{free, {}};
      const int tray = shape.tray_of_gpu(free.front());
      if (op == 0)
        for (int t = tray; t < std::min(tray + 3, shape.trays()); ++t) a.held_trays.push_back(t);
      // Sometimes cores on its first tray (now and then all of them) and one on a tray it may have no GPU
      // of, idle or not.
      const int cores = state.free_cpus_in_tray(tray);
      if (op == 1 && cores > 0) a.cpus.push_back({tray, std::min(cores, 2)});
      if (op == 2 && cores > 0) a.cpus.push_back({tray, cores});
      const int other = std::uniform_int_distribution<int>(0, shape.trays() - 1)(r);
      if (op == 1 && other != tray && state.free_cpus_in_tray(other) > 0) a.cpus.push_back({other, 1});
      return a;
    };
    nvlsim::test::random_steps(state, rng, 2000, 5, new_job,
                               [&state](const std::vector<Allocation>&) { require_indexes_match(state); });
  }
}

namespace {

Allocation shards_on(std::vector<int> gpus, int shards) {
  Allocation a{std::move(gpus), {}};
  a.shards = shards;
  return a;
}

}  // namespace

TEST_CASE("a GPU holding shards is busy for whole-GPU jobs until its last shard is released",
          "[cluster_state][shard]") {
  ClusterState state(kTwoRacks);
  CHECK(state.shards_per_gpu() == 4);
  const Allocation a = shards_on({1}, 1);
  const Allocation b = shards_on({1, 5}, 3);  // fills GPU 1; 3 shards of GPU 5 (tray 1)
  state.apply(a);
  require_counters(state, 3, 4, 71, 72, 143);
  CHECK_FALSE(state.gpu_free(1));
  CHECK_FALSE(state.tray_idle(0));
  CHECK(state.busy_gpus() == 1);
  CHECK(state.gpu_has_free_shards(1, 3));
  CHECK_FALSE(state.gpu_has_free_shards(1, 4));
  state.apply(b);
  CHECK(state.shards_used(1) == 4);
  CHECK(state.shards_used(5) == 3);
  CHECK_FALSE(state.gpu_has_free_shards(1, 1));
  require_counters(state, 3, 3, 70, 72, 142);
  CHECK(state.busy_gpus() == 2);
  state.release(a);
  CHECK_FALSE(state.gpu_free(1));  // b still holds 3 of its shards
  state.release(b);
  require_counters(state, 4, 4, 72, 72, 144);
  CHECK(state.gpu_free(1));
  CHECK(state.busy_gpus() == 0);
  CHECK(state.idle_trays() == 36);
}

TEST_CASE("shards and whole GPUs exclude each other per GPU, and a failed apply changes nothing",
          "[cluster_state][shard]") {
  ClusterState state(kTwoRacks, 2);
  state.apply(Allocation{{0}, {}});
  state.apply(shards_on({2}, 1));
  CHECK_THROWS_AS(state.apply(shards_on({0}, 1)), std::logic_error);     // held whole
  CHECK_THROWS_AS(state.apply(Allocation{{2}, {}}), std::logic_error);   // holds shards
  CHECK_THROWS_AS(state.apply(shards_on({3, 2}, 2)), std::logic_error);  // GPU 2 has 1 of 2 free
  CHECK_THROWS_AS(state.apply(shards_on({3, 3}, 1)), std::logic_error);  // listed twice
  CHECK_THROWS_AS(state.release(shards_on({2}, 2)), std::logic_error);   // holds 1
  CHECK_THROWS_AS(state.release(shards_on({0}, 1)), std::logic_error);   // held whole
  CHECK(state.shards_used(2) == 1);
  CHECK(state.shards_used(3) == 0);
  CHECK(state.gpu_free(3));
  require_counters(state, 2, 4, 70, 72, 142);
  CHECK_THROWS_AS(ClusterState(kTwoRacks, 0), std::invalid_argument);
  CHECK_THROWS_AS(ClusterState(kTwoRacks, 256), std::invalid_argument);
}

TEST_CASE("a down GPU holding shards stays unavailable after its shards are released",
          "[cluster_state][shard]") {
  ClusterState state(kTwoRacks);
  const Allocation a = shards_on({6}, 2);
  state.apply(a);
  state.set_down(6, true);
  CHECK_FALSE(state.gpu_has_free_shards(6, 1));
  CHECK(state.free_gpus_in_tray(1) == 3);
  state.release(a);
  CHECK(state.free_gpus_in_tray(1) == 3);
  CHECK(state.busy_gpus() == 0);
  state.set_down(6, false);
  CHECK(state.free_gpus_in_tray(1) == 4);
  CHECK(state.gpu_free(6));
}

TEST_CASE("the indexes follow random mixes of whole-GPU and shard jobs", "[cluster_state][shard]") {
  ClusterState state(kEightRacks);
  std::mt19937 rng(2026);
  const auto new_job = [&state](int op, std::mt19937& r) -> std::optional<Allocation> {
    // A whole-GPU job on up to 8 free GPUs, or a shard job of 1..4 shards on up to 3 GPUs that have them.
    const int shards = op < 3 ? 0 : std::uniform_int_distribution<int>(1, 4)(r);
    std::vector<int> candidates;
    for (int gpu = 0; gpu < kEightRacks.gpus(); ++gpu)
      if (shards == 0 ? state.gpu_free(gpu) : state.gpu_has_free_shards(gpu, shards))
        candidates.push_back(gpu);
    if (candidates.empty()) return std::nullopt;
    std::shuffle(candidates.begin(), candidates.end(), r);
    candidates.resize(std::min<std::size_t>(candidates.size(), shards == 0 ? 8 : 3));
    std::sort(candidates.begin(), candidates.end());
    return shards_on(candidates, shards);
  };
  nvlsim::test::random_steps(state, rng, 2000, 6, new_job, [&state](const std::vector<Allocation>& applied) {
    require_indexes_match(state);
    // Shards per GPU and GPUs in use, recounted from the running jobs.
    std::vector<int> shards(kEightRacks.gpus(), 0), whole(kEightRacks.gpus(), 0);
    for (const Allocation& a : applied)
      for (int gpu : a.gpus) (a.shards > 0 ? shards[gpu] += a.shards : whole[gpu] = 1);
    int busy = 0;
    for (int gpu = 0; gpu < kEightRacks.gpus(); ++gpu) {
      REQUIRE(state.shards_used(gpu) == shards[gpu]);
      REQUIRE(shards[gpu] <= 4);
      REQUIRE_FALSE((shards[gpu] > 0 && whole[gpu] == 1));
      busy += shards[gpu] > 0 || whole[gpu] == 1;
    }
    REQUIRE(state.busy_gpus() == busy);
  });
}
