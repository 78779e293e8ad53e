// What the scheduler relies on from every placement policy (placement_policy.hpp), checked on random
// states for each policy variant.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "schedulers/policy_registry.hpp"

using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::JobRequest;
using nvlsim::RequestShape;

namespace {

const ClusterShape kFourRacks{4, 18, 4};

// Every registered policy with its defaults, then the parameterised variants worth checking apart.
std::vector<std::string> all_specs() {
  std::vector<std::string> specs = nvlsim::policy_names();
  for (const char* variant : {"block:min_block_nodes=16", "sub-block:segment=9", "sub-block:segment=none",
                              "sub-block:spread=1", "sub-block:consolidate=1"})
    specs.emplace_back(variant);
  return specs;
}

const std::vector<std::string> kSpecs = all_specs();

struct RandomLoad {
  ClusterState state;
  std::vector<nvlsim::Allocation> running;
};

// Up to `max_jobs` jobs of 1-80 GPUs placed in turn by the policy (those that fit), then, one time in
// three, a random GPU down.
RandomLoad random_load(const nvlsim::PlacementPolicy& policy, std::mt19937_64& rng, int max_jobs) {
  RandomLoad load{ClusterState(kFourRacks), {}};
  for (int k = static_cast<int>(rng() % (max_jobs + 1)); k > 0; --k)
    if (auto placed = policy.place(load.state, {1 + static_cast<int>(rng() % 80)})) {
      load.state.apply(*placed);
      load.running.push_back(std::move(*placed));
    }
  if (rng() % 3 == 0) load.state.set_down(static_cast<int>(rng() % kFourRacks.gpus()), true);
  return load;
}

}  // namespace

// may_fit prunes place() calls in the scheduler; a false "no" would change which jobs start.
TEST_CASE("may_fit says no only when place would fail, and does say no") {
  for (const std::string& spec : kSpecs) {
    const auto policy = nvlsim::make_policy(spec, nvlsim::PolicyContext{kFourRacks});
    std::mt19937_64 rng(11);
    int pruned = 0;
    for (int round = 0; round < 300; ++round) {
      const ClusterState state = random_load(*policy, rng, 11).state;
      for (int gpus : {1, 3, 4, 16, 36, 72, 73, 144, 288}) {
        const JobRequest request{gpus};
        const bool may = policy->may_fit(state, request);
        INFO(spec << ": " << gpus << " GPUs, round " << round);
        if (!may) {
          ++pruned;
          CHECK_FALSE(policy->place(state, request).has_value());
        }
      }
    }
    INFO(spec);
    CHECK(pruned > 0);
  }
}

// The backfill reservation steps back and forth between replayed futures on the strength of this: a
// request that may fit keeps doing so when a running job ends, and one that fits does too where the policy
// says so (PlacementPolicy::monotone).
TEST_CASE("a request that fits (or may fit) still does once a running job releases its resources") {
  for (const std::string& spec : kSpecs) {
    const auto policy = nvlsim::make_policy(spec, nvlsim::PolicyContext{kFourRacks});
    std::mt19937_64 rng(23);
    int gained = 0;  // fits that the release made: the states were tight enough to matter
    int kept = 0;    // fits of requests said to be monotone, kept after the release
    for (int round = 0; round < 300; ++round) {
      const RandomLoad load = random_load(*policy, rng, 14);
      if (load.running.empty()) continue;
      ClusterState later = load.state;
      later.release(load.running[rng() % load.running.size()]);
      for (int gpus : {1, 2, 3, 4, 5, 8, 16, 33, 36, 64, 72, 73, 100, 144, 200, 288}) {
        for (const RequestShape shape : {RequestShape::gpus, RequestShape::nodes}) {
          if (shape == RequestShape::nodes && gpus % 4 != 0) continue;
          const JobRequest request{gpus, shape};
          INFO(spec << ": " << gpus << " GPUs, " << (shape == RequestShape::nodes ? "trays" : "gpus")
                    << ", round " << round);
          const bool before = policy->place(load.state, request).has_value();
          const bool after = policy->place(later, request).has_value();
          if (before && policy->monotone(load.state, request)) {
            CHECK(after);
            ++kept;
          }
          if (policy->may_fit(load.state, request)) CHECK(policy->may_fit(later, request));
          gained += !before && after;
        }
      }
    }
    INFO(spec);
    CHECK(gained > 0);
    CHECK(kept > 0);
  }
}
