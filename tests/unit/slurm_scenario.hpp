#pragma once
// Drives a placement policy through a sequence of submissions and ends, as the Slurm oracle notes
// describe their scenarios, and prints each placement the way `scontrol show job -d` groups it.

#include <fmt/format.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedulers/cluster_state.hpp"
#include "schedulers/placement_policy.hpp"

namespace nvlsim::test {

class SlurmScenario {
 public:
  SlurmScenario(std::unique_ptr<PlacementPolicy> policy, ClusterShape shape, int cpus_per_gpu)
      : policy_(std::move(policy)), state_(shape), cpus_per_gpu_(cpus_per_gpu) {}

  // Places and starts the job; "tray-3:0-1 tray-4:0-3" (GPU indices per tray), or "" when it must wait.
  std::string submit(const std::string& name, int gpus, RequestShape shape = RequestShape::gpus) {
    const auto placed = policy_->place(state_, JobRequest{gpus, shape, cpus_per_gpu_});
    if (!placed) return "";
    state_.apply(*placed);
    running_[name] = *placed;
    return describe(*placed);
  }
  void end(const std::string& name) {
    state_.release(running_.at(name));
    running_.erase(name);
  }
  void hold_tray(int tray) { state_.apply(Allocation{{}, {tray}}); }
  void down_gpu(int gpu) { state_.set_down(gpu, true); }

 private:
  std::string describe(const Allocation& a) const {
    const int per_tray = state_.shape().gpus_per_tray;
    std::map<int, std::vector<int>> by_tray;
    for (int gpu : a.gpus) by_tray[gpu / per_tray].push_back(gpu % per_tray);
    std::string out;
    for (const auto& [tray, indices] : by_tray) {
      std::string list;
      for (std::size_t i = 0; i < indices.size(); ++i) {
        std::size_t j = i;
        while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
        list += fmt::format("{}{}", list.empty() ? "" : ",", indices[i]);
        if (j > i) list += fmt::format("-{}", indices[j]);
        i = j;
      }
      out += fmt::format("{}tray-{}:{}", out.empty() ? "" : " ", tray, list);
    }
    return out;
  }

  std::unique_ptr<PlacementPolicy> policy_;
  ClusterState state_;
  int cpus_per_gpu_;
  std::map<std::string, Allocation> running_;
};

}  // namespace nvlsim::test
