#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "schedulers/per_gpu_policy.hpp"
#include "schedulers/policy_registry.hpp"
#include "schedulers/shard_select.hpp"

using nvlsim::Allocation;
using nvlsim::ClusterShape;
using nvlsim::ClusterState;
using nvlsim::JobRequest;
using nvlsim::PerGpuPolicy;
using nvlsim::RequestShape;

// The shard scenarios of tests/slurm_oracle/sharing_probe.py (docs/sharing.md), whose placements are the
// real Slurm 22.05's, replayed through per-gpu: the steps are written as the probe submits them. nvlsim has
// no -w: a share job pinned to a tray gets its GPU there by the rules (first_gpu_with_free_shards), a
// whole-GPU job pinned to a tray is applied as Slurm placed it, to build the state the next steps see.
namespace {

class ShardScript {
 public:
  // MPS counts 100 shares per GPU, shards 4.
  ShardScript(int trays, bool mps) : state_(ClusterShape{1, trays, 4, 144}, mps ? 100 : 4), mps_(mps) {}

  // Runs one step; returns per-gpu's answer in the probe's notation ("tray-0 shard:2@1",
  // "tray-0 gpu:3@1-3 + tray-2 gpu:4@0-3", "pending"), or `expected` itself for a pinned step.
  std::string step(const std::string& label, const std::string& args, const std::string& expected) {
    if (args == "cancel") {
      state_.release(running_.at(label));
      running_.erase(label);
      return "";
    }
    JobRequest request;
    int cpus = 0;  // -c: CPUs of the job's one task
    int nodes = 1;
    int pinned = -1;
    std::istringstream in(args);
    for (std::string word; in >> word;) {
      if (word == "-w")
        in >> word, pinned = std::stoi(word.substr(5));
      else if (word == "-c")
        in >> cpus;
      else if (word == "-N")
        in >> nodes;
      else if (word.starts_with("--gres=shard:"))
        request.shards = std::stoi(word.substr(13));
      else if (word.starts_with("--gres=mps:"))
        request.shards = std::stoi(word.substr(11)), request.gres = nvlsim::SharedGres::mps;
      else if (word.starts_with("--gpus="))
        request.gpus = std::stoi(word.substr(7));
      else if (word.starts_with("--cpus-per-gpu="))
        request.cpus_per_gpu = std::stoi(word.substr(15));
      else if (word == "--gpus-per-node=4")
        request.gpus = 4 * nodes, request.shape = RequestShape::nodes;
      else
        FAIL("unknown probe argument " << word);
    }
    if (request.shards > 0) request.gpus = nodes;
    Allocation placed;
    if (pinned >= 0 && request.shards > 0) {
      // Pinned to a tray, a share job still gets its GPU by the rules: ask for it.
      const int gpu = nvlsim::cons_tres::first_gpu_with_free_shards(state_, pinned, request);
      if (gpu < 0) return "pending";
      placed.gpus = {gpu};
      placed.shards = request.shards;
      placed.cpus = {{pinned, std::max(cpus, 1)}};
    } else if (pinned >= 0) {
      placed = parse(expected);
      if (cpus > 0) placed.cpus = {{pinned, cpus}};
    } else {
      // A whole-GPU job's -c is its one task's CPUs: for one GPU, a CPU share per GPU.
      if (cpus > 0) request.cpus_per_gpu = cpus;
      const auto answer = PerGpuPolicy(nvlsim::SlurmVersion::v22_05).place(state_, request);
      if (!answer) return "pending";
      placed = *answer;
    }
    state_.apply(placed);
    running_[label] = placed;
    return text(placed);
  }

 private:
  // The probe's notation of whole GPUs on one tray back to an allocation.
  Allocation parse(const std::string& expected) const {
    Allocation a;
    const int tray = std::stoi(expected.substr(5));
    const std::size_t at = expected.find('@');
    const int first = std::stoi(expected.substr(at + 1));
    const std::size_t dash = expected.find('-', at);
    const int last = dash == std::string::npos ? first : std::stoi(expected.substr(dash + 1));
    for (int g = first; g <= last; ++g) a.gpus.push_back(state_.shape().first_gpu_of_tray(tray) + g);
    a.cpus = {{tray, 1}};
    return a;
  }

  std::string text(const Allocation& a) const {
    std::map<int, std::vector<int>> by_tray;
    for (int gpu : a.gpus) by_tray[state_.shape().tray_of_gpu(gpu)].push_back(gpu % 4);
    std::string out;
    for (const auto& [tray, gpus] : by_tray) {
      out += fmt::format("{}tray-{} ", out.empty() ? "" : " + ", tray);
      out += a.shards > 0 ? fmt::format("{}:{}@{}", mps_ ? "mps" : "shard", a.shards, gpus.front())
                          : fmt::format("gpu:{}@{}", gpus.size(), gpus.front());
      if (a.shards == 0 && gpus.size() > 1) out += fmt::format("-{}", gpus.back());
    }
    return out;
  }

  ClusterState state_;
  bool mps_;
  std::map<std::string, Allocation> running_;
};

struct Step {
  std::string label, args, expected;
};

void replay(int trays, const std::vector<Step>& steps, bool mps = false) {
  ShardScript script(trays, mps);
  for (const Step& s : steps) {
    INFO(s.label << ": " << s.args);
    const std::string got = script.step(s.label, s.args, s.expected);
    if (s.args != "cancel") CHECK(got == s.expected);
  }
}

}  // namespace

TEST_CASE("per-gpu shards: the lowest GPU of the tray with enough free shards", "[per_gpu][shard][slurm]") {
  replay(3, {{"a", "--gres=shard:1", "tray-0 shard:1@0"},
             {"b", "--gres=shard:2", "tray-0 shard:2@0"},
             {"c", "--gres=shard:3", "tray-0 shard:3@1"},
             {"d", "--gres=shard:1", "tray-0 shard:1@0"},
             {"e", "--gres=shard:4", "tray-0 shard:4@2"},
             {"f", "--gres=shard:2", "tray-0 shard:2@3"}});
  // First fit, not best fit; an empty GPU 0 before a partly used GPU 1.
  replay(3, {{"a", "--gres=shard:2", "tray-0 shard:2@0"},
             {"b", "--gres=shard:3", "tray-0 shard:3@1"},
             {"c", "--gres=shard:1", "tray-0 shard:1@0"},
             {"d", "--gres=shard:2", "tray-0 shard:2@2"}});
}

TEST_CASE("per-gpu shards: the tray by free CPUs, in runs of trays that can serve",
          "[per_gpu][shard][slurm]") {
  // No packing onto a partly used GPU: tray-0 has fewer free CPUs.
  replay(3, {{"a", "-w tray-1 --gres=shard:2", "tray-1 shard:2@0"},
             {"b", "-w tray-0 -c 4 --gpus=1", "tray-0 gpu:1@0"},
             {"c", "--gres=shard:1", "tray-0 shard:1@1"},
             {"d", "-w tray-2 -c 3 --gres=shard:1", "tray-2 shard:1@0"},
             {"e", "--gres=shard:1", "tray-0 shard:1@1"}});
  // Runs, not trays: tray-2 cannot serve, run tray-[0-1] has 264 free CPUs, tray-3 140.
  replay(4, {{"a", "-w tray-0 -c 24 --gres=shard:1", "tray-0 shard:1@0"},
             {"b", "-w tray-2 --gpus=4", "tray-2 gpu:4@0-3"},
             {"c", "-w tray-3 -c 4 --gres=shard:1", "tray-3 shard:1@0"},
             {"d", "--gres=shard:1", "tray-3 shard:1@0"}});
  // Equal free CPUs: the lowest tray.
  replay(3, {{"a", "-w tray-2 --gres=shard:1", "tray-2 shard:1@0"},
             {"b", "-w tray-1 --gres=shard:1", "tray-1 shard:1@0"},
             {"c", "--gres=shard:4", "tray-1 shard:4@1"},
             {"d", "--gres=shard:1", "tray-1 shard:1@0"}});
  replay(3, {{"a", "--gpus=1 --cpus-per-gpu=10", "tray-0 gpu:1@0"},
             {"b", "-w tray-1 --gres=shard:3", "tray-1 shard:3@0"},
             {"c", "--gres=shard:2", "tray-0 shard:2@1"},
             {"d", "--gres=shard:1", "tray-0 shard:1@1"},
             {"e", "-w tray-1 -c 20 --gres=shard:1", "tray-1 shard:1@0"},
             {"f", "--gres=shard:2", "tray-1 shard:2@1"}});
}

TEST_CASE("per-gpu shards: one GPU per tray, more shards than a GPU has never start",
          "[per_gpu][shard][slurm]") {
  std::vector<Step> steps{{"big", "--gres=shard:5", "pending"}, {"all", "--gres=shard:16", "pending"}};
  for (int i = 0; i < 12; ++i)
    steps.push_back(
        {fmt::format("s{}", i), "--gres=shard:3", fmt::format("tray-{} shard:3@{}", i / 4, i % 4)});
  steps.push_back({"two", "--gres=shard:2", "pending"});
  steps.push_back({"one", "--gres=shard:1", "tray-0 shard:1@0"});
  replay(3, steps);
  const ClusterState empty(ClusterShape{1, 3, 4, 144});
  CHECK_FALSE(PerGpuPolicy(nvlsim::SlurmVersion::v22_05).may_fit(empty, JobRequest{.gpus = 1, .shards = 5}));
  CHECK(PerGpuPolicy(nvlsim::SlurmVersion::v22_05).may_fit(empty, JobRequest{.gpus = 1, .shards = 4}));
}

TEST_CASE("per-gpu shards and whole GPUs exclude each other per GPU", "[per_gpu][shard][slurm]") {
  replay(3, {{"a", "--gres=shard:1", "tray-0 shard:1@0"},
             {"b", "--gpus=4", "tray-1 gpu:4@0-3"},
             {"c", "--gpus=3", "tray-0 gpu:3@1-3"},
             {"d", "--gres=shard:1", "tray-0 shard:1@0"},
             {"e", "--gres=shard:4", "tray-2 shard:4@0"},
             {"a", "cancel", ""},
             {"d", "cancel", ""},
             {"g", "--gpus=1", "tray-0 gpu:1@0"},
             {"h", "--gpus=2", "tray-2 gpu:2@1-2"}});
}

TEST_CASE("per-gpu shards on several trays: K on each, trays as whole-tray jobs take them",
          "[per_gpu][shard][slurm]") {
  replay(3, {{"a", "-N 2 --gres=shard:2", "tray-0 shard:2@0 + tray-1 shard:2@0"},
             {"b", "--gpus=7", "tray-0 gpu:3@1-3 + tray-2 gpu:4@0-3"},
             {"c", "-N 1 --gpus-per-node=4", "pending"},
             {"d", "--gpus=2", "tray-1 gpu:2@1-2"}});
  replay(3, {{"a", "-w tray-0 -c 10 --gres=shard:1", "tray-0 shard:1@0"},
             {"b", "-w tray-2 -c 5 --gres=shard:1", "tray-2 shard:1@0"},
             {"c", "-N 2 --gres=shard:4", "tray-0 shard:4@1 + tray-1 shard:4@0"},
             {"d", "-N 2 --gres=shard:2", "tray-0 shard:2@0 + tray-1 shard:2@1"},
             {"e", "-w tray-1 -c 20 --gres=shard:4", "tray-1 shard:4@2"},
             {"f", "-N 2 --gres=shard:4", "tray-0 shard:4@2 + tray-1 shard:4@3"},
             {"g", "-N 2 --gres=shard:4", "tray-0 shard:4@3 + tray-2 shard:4@1"}});
}

TEST_CASE("per-gpu MPS: one GPU per tray while the tray has MPS, else the first not held whole",
          "[per_gpu][mps][slurm]") {
  replay(3,
         {{"a", "--gres=mps:50", "tray-0 mps:50@0"},
          {"b", "--gres=mps:30", "tray-0 mps:30@0"},
          {"c", "--gres=mps:40", "tray-1 mps:40@0"},
          {"d", "--gres=mps:20", "tray-0 mps:20@0"},
          {"e", "--gres=mps:100", "tray-2 mps:100@0"},
          {"f", "--gres=mps:150", "pending"},
          {"g", "--gres=mps:101", "pending"},
          {"h", "--gres=mps:10", "tray-1 mps:10@0"}},
         true);
  replay(3,
         {{"a", "--gpus=2", "tray-0 gpu:2@0-1"},
          {"b", "--gres=mps:50", "tray-0 mps:50@2"},
          {"c", "--gpus=2", "tray-1 gpu:2@0-1"},
          {"d", "--gpus=1", "tray-0 gpu:1@3"},
          {"e", "--gres=mps:60", "tray-1 mps:60@2"},
          {"f", "-N 2 --gres=mps:50", "tray-0 mps:50@2 + tray-2 mps:50@0"}},
         true);
  replay(3,
         {{"a", "-w tray-0 --gpus=1", "tray-0 gpu:1@0"},
          {"b", "-w tray-0 --gres=mps:50", "tray-0 mps:50@1"},
          {"a", "cancel", ""},
          {"c", "-w tray-0 --gres=mps:60", "pending"},
          {"d", "-w tray-0 --gres=mps:40", "tray-0 mps:40@1"},
          {"b", "cancel", ""},
          {"d", "cancel", ""},
          {"f", "-w tray-0 --gres=mps:60", "tray-0 mps:60@0"}},
         true);
}

TEST_CASE("per-gpu shards skip held trays and down GPUs, and take one CPU per tray", "[per_gpu][shard]") {
  ClusterState state(ClusterShape{1, 3, 4, 144});
  state.apply(Allocation{{}, {0}});  // tray 0 held by an exclusive job
  state.set_down(4, true);           // GPU 0 of tray 1
  const auto placed =
      PerGpuPolicy(nvlsim::SlurmVersion::v22_05).place(state, JobRequest{.gpus = 1, .shards = 2});
  REQUIRE(placed);
  CHECK(placed->gpus == std::vector<int>{5});
  CHECK(placed->shards == 2);
  CHECK(placed->cpus == std::vector<nvlsim::TrayCpus>{{1, 1}});
  CHECK(nvlsim::cons_tres::first_gpu_with_free_shards(state, 0, JobRequest{.gpus = 1, .shards = 1}) == -1);
}

TEST_CASE("sub-block places shares by Slurm's block choice, and block gives a share job its block whole",
          "[shard][sub_block][block]") {
  const nvlsim::PolicyContext context{ClusterShape{2, 18, 4, 144}};
  ClusterState state(context.shape);
  // Domain 1 is the fuller one: a 64-GPU job leaves it 2 trays; domain 0 holds one GPU on tray 3.
  Allocation big;
  for (int gpu = 72; gpu < 72 + 64; ++gpu) big.gpus.push_back(gpu);
  state.apply(big);
  state.apply(Allocation{{13}, {}, {{3, 1}}});
  const auto sub_block = nvlsim::make_policy("sub-block", context);
  // A share job goes through Slurm's block choice like a whole-tray job of that many nodes: the block with
  // the fewest trays that can serve (domain 1's 2), its trays in index order, then on each the first GPU with
  // the shares.
  auto placed = sub_block->place(state, JobRequest{.gpus = 1, .shards = 2});
  REQUIRE(placed);
  CHECK(placed->gpus == std::vector<int>{136});
  CHECK(placed->shards == 2);
  state.apply(*placed);
  placed = sub_block->place(state, JobRequest{.gpus = 1, .shards = 2});
  REQUIRE(placed);
  CHECK(placed->gpus == std::vector<int>{136});  // the same GPU's other half: tray 34 comes first
  // Three trays: domain 1 has only two, so the three come from domain 0, in index order.
  placed = sub_block->place(state, JobRequest{.gpus = 3, .shards = 1});
  REQUIRE(placed);
  CHECK(placed->gpus == std::vector<int>{0, 4, 8});
  CHECK_FALSE(sub_block->place(state, JobRequest{.gpus = 1, .shards = 5}));
  CHECK_FALSE(sub_block->may_fit(state, JobRequest{.gpus = 1, .shards = 5}));

  // block: the job's block is its own (--exclusive=topo), so it holds its GPU whole in an idle block.
  const auto block = nvlsim::make_policy("block", context);
  placed = block->place(ClusterState(context.shape), JobRequest{.gpus = 1, .shards = 1});
  REQUIRE(placed);
  CHECK(placed->shards == 0);
  CHECK(placed->gpus.size() == 1);
  CHECK(placed->held_trays.size() == 18);
  CHECK_FALSE(block->place(state, JobRequest{.gpus = 1, .shards = 1}));  // no idle block left
  CHECK_FALSE(block->place(ClusterState(context.shape), JobRequest{.gpus = 1, .shards = 5}));
  CHECK_FALSE(block->may_fit(ClusterState(context.shape), JobRequest{.gpus = 1, .shards = 5}));
}

// The scheduler's contract (placement_policy.hpp) for shard requests: may_fit says no only when place
// fails, and a request that fits keeps fitting when any running job ends.
TEST_CASE("per-gpu and tree shard placements keep the placement contract on random mixed loads",
          "[per_gpu][tree][shard]") {
  const ClusterShape shape{2, 18, 4, 144};
  const std::string name = GENERATE(as<std::string>{}, "per-gpu", "tree");
  INFO(name);
  const auto made = nvlsim::make_policy(name, nvlsim::PolicyContext{shape});
  const nvlsim::PlacementPolicy& policy = *made;
  std::mt19937_64 rng(20);
  int placed_count = 0;
  for (int round = 0; round < 100; ++round) {
    ClusterState state(shape);
    std::vector<Allocation> running;
    for (int k = static_cast<int>(rng() % 60); k > 0; --k) {
      JobRequest job{1 + static_cast<int>(rng() % 12)};
      if (rng() % 2 == 0)
        job = JobRequest{.gpus = 1 + static_cast<int>(rng() % 3), .shards = 1 + static_cast<int>(rng() % 4)};
      if (auto placed = policy.place(state, job)) {
        state.apply(*placed);
        running.push_back(*placed);
      }
    }
    for (int trays = 1; trays <= 3; ++trays) {
      for (int shards = 1; shards <= 5; ++shards) {
        const JobRequest request{.gpus = trays, .shards = shards};
        const auto placed = policy.place(state, request);
        INFO("round " << round << ": " << trays << " trays x " << shards << " shards");
        if (!policy.may_fit(state, request)) CHECK_FALSE(placed);
        if (!placed) continue;
        ++placed_count;
        CHECK(static_cast<int>(placed->gpus.size()) == trays);
        for (const Allocation& job : running) {
          ClusterState after = state;
          after.release(job);
          CHECK(policy.place(after, request));
        }
      }
    }
  }
  CHECK(placed_count > 100);
}
