#pragma once
// Helpers shared by the block-topology policy tests: building cluster states tray by tray, placing.

#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "schedulers/cluster_state.hpp"
#include "schedulers/policy_registry.hpp"

namespace nvlsim::test {

// Eight NVL72 racks: rack r is trays 18r..18r+17, GPUs 72r..72r+71; levels 18, 36, 72, 144 nodes.
inline constexpr ClusterShape kEightRacks{8, 18, 4};

// What the policy `spec` places for a job of `gpus` on `state`; nullopt when it must wait.
inline std::optional<Allocation> place_with(const std::string& spec, const ClusterState& state, int gpus) {
  return make_policy(spec, PolicyContext{state.shape()})->place(state, {gpus});
}

// Ids first..end-1.
inline std::vector<int> ids(int first, int end) {
  std::vector<int> result(end - first);
  std::iota(result.begin(), result.end(), first);
  return result;
}

inline std::vector<int> concat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// GPU ids of trays first..end-1 on 4-GPU trays.
inline std::vector<int> tray_gpus(int first, int end) {
  return ids(4 * first, 4 * end);
}

// Runs a job on every GPU of trays first..end-1.
inline void busy_trays(ClusterState& state, int first, int end) {
  state.apply(Allocation{tray_gpus(first, end), {}});
}

// Leaves only the first `idle` trays of each 18-tray rack idle; the rest run jobs.
inline ClusterState with_idle_trays(const ClusterShape& shape, const std::vector<int>& idle) {
  ClusterState state(shape);
  for (int rack = 0; rack < shape.domains; ++rack) {
    const int first = rack * shape.trays_per_domain;
    if (idle[rack] < shape.trays_per_domain)
      busy_trays(state, first + idle[rack], first + shape.trays_per_domain);
  }
  return state;
}

}  // namespace nvlsim::test
