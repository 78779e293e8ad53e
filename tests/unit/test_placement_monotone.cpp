#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "schedulers/policy_registry.hpp"

using nvlsim::ClusterShape;
using nvlsim::ClusterState;

// The backfill reservation steps back and forth between replayed futures on the strength of this
// contract (placement_policy.hpp): a request that fits, or may fit, keeps doing so when a running job ends.
TEST_CASE("a request that fits (or may fit) still does once a running job releases its resources") {
  const ClusterShape shape{4, 18, 4};
  const nvlsim::PolicyContext context{shape};
  for (const std::string spec :
       {"per-gpu", "block", "block:min_block_nodes=16", "sub-block", "sub-block:segment=9",
        "sub-block:segment=none", "sub-block:spread=1", "sub-block:consolidate=1", "tree"}) {
    const auto policy = nvlsim::make_policy(spec, context);
    std::mt19937_64 rng(23);
    int gained = 0;  // fits that the release made: the states were tight enough to matter
    for (int round = 0; round < 300; ++round) {
      ClusterState state(shape);
      std::vector<nvlsim::Allocation> running;
      for (int k = 1 + static_cast<int>(rng() % 14); k > 0; --k)
        if (auto placed = policy->place(state, {1 + static_cast<int>(rng() % 80)})) {
          state.apply(*placed);
          running.push_back(*placed);
        }
      if (running.empty()) continue;
      if (rng() % 3 == 0) state.set_down(static_cast<int>(rng() % shape.gpus()), true);
      ClusterState later = state;
      later.release(running[rng() % running.size()]);
      for (int gpus : {1, 2, 3, 4, 5, 8, 16, 33, 36, 64, 72, 73, 100, 144, 200, 288}) {
        INFO(spec << ": " << gpus << " GPUs, round " << round);
        const bool before = policy->place(state, {gpus}).has_value();
        const bool after = policy->place(later, {gpus}).has_value();
        if (before) CHECK(after);
        if (policy->may_fit(state, {gpus})) CHECK(policy->may_fit(later, {gpus}));
        gained += !before && after;
      }
    }
    INFO(spec);
    CHECK(gained > 0);
  }
}
