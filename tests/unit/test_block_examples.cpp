// NVIDIA's block-scheduling examples (tests/data/block_examples.json): nvlsim's block and sub-block give the
// answers Slurm 24.11 gave, keeping their own state from step to step as a replay does. The same file is
// asked of the real Slurm by tests/slurm_oracle/block_examples.py.

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedulers/policy_registry.hpp"

namespace {

using nlohmann::json;
using nvlsim::Allocation;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;

json examples() {
  std::ifstream in(std::string(NVLSIM_TEST_DATA) + "/block_examples.json");
  REQUIRE(in);
  return json::parse(in);
}

// [[tray, [GPU indices], cores], ...] of an allocation, as the file writes Slurm's answers.
json as_expect(const Allocation& a, const ClusterShape& shape) {
  std::map<int, std::vector<int>> gpus;
  for (int gpu : a.gpus) gpus[shape.tray_of_gpu(gpu)].push_back(gpu % shape.gpus_per_tray);
  json out = json::array();
  for (const auto& [tray, indices] : gpus) {
    int cores = 0;
    for (const auto& c : a.cpus)
      if (c.tray == tray) cores = c.cpus;
    out.push_back(json::array({tray, indices, cores}));
  }
  return out;
}

std::vector<int> gpus_of(const json& trays, const ClusterShape& shape) {
  std::vector<int> gpus;
  for (int tray : trays)
    for (int i = 0; i < shape.gpus_per_tray; ++i) gpus.push_back(shape.first_gpu_of_tray(tray) + i);
  return gpus;
}

}  // namespace

TEST_CASE("NVIDIA's block examples get Slurm 24.11's answers", "[block][sub_block]") {
  const json file = examples();
  const ClusterShape shape{file.at("racks").get<int>(), 18, 4};
  int compared = 0;
  for (const json& scenario : file.at("scenarios")) {
    const std::string name = scenario.at("name").get<std::string>();
    INFO(name);
    const auto policy =
        nvlsim::make_policy(scenario.at("policy").get<std::string>(), nvlsim::PolicyContext{shape});
    ClusterState state(shape);
    state.index_groups(policy->tray_groups());
    std::map<std::string, Allocation> running;
    int step_number = 0;
    for (const json& step : scenario.at("steps")) {
      INFO("step " << ++step_number);
      if (step.contains("submit")) {
        nvlsim::JobRequest request;
        request.gpus = step.at("gpus").get<int>();
        request.shape =
            step.at("shape") == "nodes" ? nvlsim::RequestShape::nodes : nvlsim::RequestShape::gpus;
        request.cpus_per_gpu = step.value("cpus_per_gpu", 0);
        const auto placed = policy->place(state, request);
        const json& expect = step.at("expect");
        if (expect.is_null()) {
          CHECK_FALSE(placed);
          // "never": not on an empty machine either; "later": there it would start.
          const bool never = !policy->place(ClusterState(shape), request);
          CHECK(never == (step.at("refused") == "never"));
        } else {
          REQUIRE(placed);
          CHECK(as_expect(*placed, shape) == expect);
          state.apply(*placed);
          running[step.at("submit").get<std::string>()] = *placed;
        }
        ++compared;
      } else if (step.contains("end")) {
        const auto job = running.find(step.at("end").get<std::string>());
        REQUIRE(job != running.end());
        state.release(job->second);
        running.erase(job);
      } else {
        const bool down = step.contains("down");
        for (int gpu : gpus_of(step.at(down ? "down" : "up"), shape)) state.set_down(gpu, down);
      }
    }
  }
  CHECK(compared >= 40);  // every submission of the file
}
