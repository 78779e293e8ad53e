// --gpu-sharing in the replay core: the one mapping from a job's fraction to the shares it asks for, and
// the running set with several jobs on one GPU (owners for failures, busy GPUs counted once).

#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "models/input_error.hpp"
#include "schedulers/policy_registry.hpp"
#include "sim/core/job_requests.hpp"
#include "sim/core/running_set.hpp"

using namespace nvlsim;

namespace {

constexpr ClusterShape kOneRack{1, 18, 4};

SimulationConfig sharing(GpuSharing mode, int shards_per_gpu = kDefaultShardsPerGpu) {
  SimulationConfig config;
  config.sharing = {mode, shards_per_gpu};
  return config;
}

Job fractional(int gpu_milli) {
  return Job{.gpus = 1, .gpu_milli = gpu_milli};
}

Allocation shares(int gpu, int k) {
  Allocation a{{gpu}, {}, {{gpu / 4, 1}}};
  a.shards = k;
  return a;
}

}  // namespace

TEST_CASE("a fraction asks for the fewest shares that cover it, under shard and mps only", "[sharing]") {
  const auto shards_of = [](const SimulationConfig& c, int milli) {
    return request_of(fractional(milli), c, kOneRack);
  };
  const SimulationConfig four = sharing(GpuSharing::shard);
  CHECK(shards_of(four, 1).shards == 1);
  CHECK(shards_of(four, 250).shards == 1);
  CHECK(shards_of(four, 251).shards == 2);
  CHECK(shards_of(four, 999).shards == 4);
  CHECK(shards_of(four, 470) == JobRequest{.gpus = 1, .shards = 2, .gres = SharedGres::shard});
  CHECK(shards_of(sharing(GpuSharing::shard, 8), 470).shards == 4);
  CHECK(shards_of(sharing(GpuSharing::shard, 1), 1).shards == 1);
  const SimulationConfig mps = sharing(GpuSharing::mps);
  CHECK(shards_of(mps, 1) == JobRequest{.gpus = 1, .shards = 1, .gres = SharedGres::mps});
  CHECK(shards_of(mps, 10).shards == 1);
  CHECK(shards_of(mps, 11).shards == 2);
  CHECK(shards_of(mps, 999).shards == 100);
  // No sharing: the fraction holds its whole GPU, as before the setting existed.
  CHECK(shards_of(sharing(GpuSharing::none), 470) == JobRequest{.gpus = 1});
  // Whole-GPU jobs are shaped as always; a fraction ignores shaping and CPUs per GPU.
  SimulationConfig nodes = four;
  nodes.request_shaping = RequestShaping::nodes;
  nodes.cpus_per_gpu = 8;
  CHECK(request_of(Job{.gpus = 1}, nodes, kOneRack) ==
        JobRequest{.gpus = 4, .shape = RequestShape::nodes, .cpus_per_gpu = 8});
  CHECK(request_of(fractional(300), nodes, kOneRack) == JobRequest{.gpus = 1, .shards = 2});
  CHECK(four.sharing.shares_per_gpu() == 4);
  CHECK(mps.sharing.shares_per_gpu() == 100);
  CHECK(sharing(GpuSharing::shard, 16).sharing.shares_per_gpu() == 16);
}

TEST_CASE("without sharing, a GPU is owned by the one job running on it until that job ends", "[sharing]") {
  const std::vector<JobRequest> requests(4, JobRequest{.gpus = 2});
  const std::vector<std::size_t> admitted{0, 1, 2, 3};
  StateSampler sampler(kOneRack, FabricParams{}, requests, admitted);
  RunningSet running(kOneRack, SharingConfig{}, requests.size(), sampler);
  running.add(2, 100, Allocation{{4, 5}, {}, {{1, 2}}});
  running.add(0, 100, Allocation{{8, 70}, {}, {{2, 1}, {17, 1}}});
  CHECK(running.owners({70, 5, 6, 4}) == std::vector<std::size_t>{0, 2});
  CHECK(running.owners_of(8).size() == 1);
  CHECK(running.owners_of(8).front() == 0);
  CHECK(running.owners_of(9).empty());
  running.remove(0);
  CHECK(running.owners({8, 70}).empty());
  CHECK(running.owners({4}) == std::vector<std::size_t>{2});
  running.add(3, 100, Allocation{{8, 9}, {}, {{2, 2}}});
  CHECK(running.owners({9, 70}) == std::vector<std::size_t>{3});
  CHECK(running.busy_gpus() == 4);
}

TEST_CASE("several jobs sharing a GPU all own it, and it counts busy once", "[sharing]") {
  const std::vector<JobRequest> requests(8, JobRequest{.gpus = 1});
  const std::vector<std::size_t> admitted{0, 1, 2, 3, 4, 5, 6, 7};
  StateSampler sampler(kOneRack, FabricParams{}, requests, admitted);
  RunningSet running(kOneRack, SharingConfig{.mode = GpuSharing::shard, .shards_per_gpu = 4}, requests.size(),
                     sampler);
  running.add(3, 100, shares(5, 1));
  running.add(1, 100, shares(5, 2));
  running.add(6, 100, shares(9, 4));
  running.add(2, 100, Allocation{{0, 1}, {}, {{0, 1}}});
  CHECK(running.busy_gpus() == 4);  // GPUs 0, 1, 5, 9
  CHECK(running.state().allocated_gpus() == 5);
  CHECK(running.state().shards_used(5) == 3);
  CHECK(running.owners({5}) == std::vector<std::size_t>{1, 3});
  CHECK(running.owners({9, 5, 0}) == std::vector<std::size_t>{1, 2, 3, 6});
  CHECK(running.owners({4, 6}).empty());
  // A fourth shard still fits on GPU 5; then it is full.
  running.add(0, 100, shares(5, 1));
  CHECK(running.owners({5}) == std::vector<std::size_t>{0, 1, 3});
  CHECK(!running.state().gpu_has_free_shards(5, 1));
  CHECK_THROWS(running.add(7, 100, shares(5, 1)));

  running.remove(1);
  CHECK(running.owners({5}) == std::vector<std::size_t>{0, 3});
  CHECK(running.busy_gpus() == 4);  // GPU 5 still holds shares
  CHECK(!running.state().gpu_free(5));
  running.remove(3);
  running.remove(0);
  CHECK(running.owners({5}).empty());
  CHECK(running.busy_gpus() == 3);
  CHECK(running.state().gpu_free(5));
  CHECK(!running.contains(0));
  CHECK(running.contains(6));
}

TEST_CASE("free shares are idle capacity, and FGD counts them as frag.go counts fractional GPUs",
          "[sharing]") {
  // Request types: 2 whole GPUs (a quarter of the jobs), 1 shard (a quarter), 3 shards (half); 4 per GPU.
  const std::vector<JobRequest> requests{JobRequest{.gpus = 2}, JobRequest{.gpus = 1, .shards = 1},
                                         JobRequest{.gpus = 1, .shards = 3},
                                         JobRequest{.gpus = 1, .shards = 3}};
  const std::vector<std::size_t> admitted{0, 1, 2, 3};
  StateSampler sampler(kOneRack, FabricParams{}, requests, admitted);
  RunningSet running(kOneRack, SharingConfig{.mode = GpuSharing::shard, .shards_per_gpu = 4}, requests.size(),
                     sampler);
  running.add(0, 100, shares(5, 1));   // 3 shards free
  running.add(1, 100, shares(9, 3));   // 1 free
  running.add(2, 100, shares(13, 2));  // 2 free
  sampler.record(0, running.state(), 1, 2, running.busy_gpus(), true, 0, 0, 0);
  running.remove(1);
  sampler.record(10, running.state(), 0, 0, running.busy_gpus(), false, 0, 0, 0);
  const auto samples = sampler.take();
  REQUIRE(samples.size() == 2);
  CHECK(samples[0].busy_gpus == 3);
  CHECK(samples[0].free_gpus == 69);
  CHECK(samples[0].shared_free_gpus == 1.5);
  // A stranded moment strands the free shares too.
  CHECK(samples[0].stranded_gpus == 70.5);
  // 2 whole GPUs: the domain has 69 free, so only the 1.5 GPUs of free shares are fragments; 1 shard:
  // none; 3 shards: the free shares of GPUs 9 and 13 (1 + 2 of 4).
  CHECK(samples[0].fgd_fragment_gpus == 0.25 * 1.5 + 0.25 * 0 + 0.5 * 0.75);
  CHECK(samples[1].shared_free_gpus == 1.25);
  CHECK(samples[1].stranded_gpus == 0);
  CHECK(samples[1].fgd_fragment_gpus == 0.25 * 1.25 + 0.5 * 0.5);
}
