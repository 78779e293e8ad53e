#pragma once
// What a placement gives a job: the GPUs it runs on, and trays it closes to everyone else.

#include <vector>

#include "models/cluster_shape.hpp"

namespace nvlsim {

struct TrayCpus {
  int tray = 0;
  int cpus = 0;
  bool operator==(const TrayCpus&) const = default;
};

struct Allocation {
  std::vector<int> gpus;  // GPU ids the job runs on, ascending
  std::vector<int>
      held_trays;  // trays closed to other jobs while it runs (whole-block exclusivity), ascending
  std::vector<TrayCpus> cpus{};  // CPU cores the job holds on each tray it uses, ascending trays
  // gres/shard: the shards the job takes on each GPU of `gpus`, which it shares with other shard jobs;
  // 0: it holds the GPUs whole (docs/sharing.md).
  int shards = 0;
  bool operator==(const Allocation&) const = default;
};

// Fills `cpus` as Slurm charges a GPU job's cores: `cpus_per_gpu` for each of its GPUs on a tray, or, when
// 0, the one CPU of its single task's share on each tray it uses.
void charge_cpus(Allocation& allocation, int cpus_per_gpu, const ClusterShape& shape);

}  // namespace nvlsim
