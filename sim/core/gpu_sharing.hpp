#pragma once
// The run setting that lets fractional jobs (Job::gpu_milli) share GPUs: --gpu-sharing none|shard|mps and
// --shards-per-gpu N (docs/sharing.md, "Sharing GPUs in a run"). How many shares a fraction asks for is
// nvlsim's choice, not Slurm's: the smallest count that covers it.

#include <string_view>

#include "models/sharing_interference.hpp"
#include "schedulers/cluster_state.hpp"

namespace nvlsim {

enum class GpuSharing {
  none,   // every job holds whole GPUs; a fraction takes its whole GPU (as before sharing existed)
  shard,  // gres/shard: each GPU split into shards_per_gpu shards
  mps,    // gres/mps: each GPU counts 100, a percentage of its compute
};

// MPS counts a GPU as 100 (Slurm's gres.conf convention, Name=mps Count=100).
inline constexpr int kMpsSharesPerGpu = 100;
// ClusterState keeps a GPU's shares in a byte.
inline constexpr int kMaxShardsPerGpu = 255;

struct SharingConfig {
  GpuSharing mode = GpuSharing::none;
  int shards_per_gpu = kDefaultShardsPerGpu;  // --shards-per-gpu; only under shard
  // --sharing-interference: how much each other job on a shared GPU slows a job's computation
  // (models/sharing_interference.hpp); 0 = none.
  double interference = kDefaultSharingInterference;

  // What the run's ClusterState counts per GPU: N shards, 100 for MPS; with no sharing no share is ever
  // asked, so the state keeps its default.
  int shares_per_gpu() const {
    if (mode == GpuSharing::mps) return kMpsSharesPerGpu;
    return mode == GpuSharing::shard ? shards_per_gpu : kDefaultShardsPerGpu;
  }
  // The shares a job asking `gpu_milli` thousandths of a GPU takes: ceil(gpu_milli x shares / 1000),
  // so a share covers at least the fraction (1..999); 0 (whole GPUs) without sharing or for a whole GPU.
  int shares_of(int gpu_milli) const {
    if (mode == GpuSharing::none || gpu_milli <= 0 || gpu_milli >= 1000) return 0;
    return (gpu_milli * shares_per_gpu() + 999) / 1000;
  }
};

// "none", "shard" or "mps"; false on any other name.
bool parse_gpu_sharing(std::string_view text, GpuSharing& out);
std::string_view gpu_sharing_name(GpuSharing mode);

}  // namespace nvlsim
