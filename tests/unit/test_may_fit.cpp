#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "schedulers/policy_registry.hpp"

using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::JobRequest;

// may_fit prunes place() calls in the scheduler; a false "no" would change which jobs start.
TEST_CASE("may_fit says no only when place would fail, and does say no") {
  const ClusterShape shape{4, 18, 4};
  const nvlsim::PolicyContext context{shape};
  for (const std::string spec :
       {"per-gpu", "block", "block:min_block_nodes=16", "sub-block", "sub-block:segment=9",
        "sub-block:segment=none", "sub-block:spread=1", "tree"}) {
    const auto policy = nvlsim::make_policy(spec, context);
    std::mt19937_64 rng(11);
    int pruned = 0;
    for (int round = 0; round < 300; ++round) {
      ClusterState state(shape);
      std::vector<nvlsim::Allocation> running;
      for (int k = static_cast<int>(rng() % 12); k > 0; --k)
        if (auto placed = policy->place(state, {1 + static_cast<int>(rng() % 80)})) {
          state.apply(*placed);
          running.push_back(*placed);
        }
      if (rng() % 3 == 0) state.set_down(static_cast<int>(rng() % shape.gpus()), true);
      for (int gpus : {1, 3, 4, 16, 36, 72, 73, 144, 288}) {
        const JobRequest request{gpus};
        const bool may = policy->may_fit(state, request);
        INFO(spec << ": " << gpus << " GPUs, round " << round);
        if (!may) {
          ++pruned;
          CHECK_FALSE(policy->place(state, request).has_value());
        }
        // Whole-rack blocks are counted exactly: a yes is a placement.
        if (spec == "block" && may) CHECK(policy->place(state, request).has_value());
      }
    }
    INFO(spec);
    CHECK(pruned > 0);
  }
}
