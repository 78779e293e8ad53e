#pragma once
// How jobs that share a GPU (shards or MPS) slow each other's computation.
//
// A fractional job's trace run time is taken as its time with the share it asked for and nobody beside it
// on the GPU. Slurm's shards and MPS percentages only count: they keep the shares of a GPU within its
// capacity, so each job still gets the compute it asked for, but the jobs of a GPU contend for its memory
// bandwidth, caches and schedulers (and under shards, time-sliced contexts). Measurements give one
// slowdown per co-resident: two vLLM servers under MPS on one A100 delivered 7.5% less than on two
// dedicated GPUs (docs/sharing.md, "What sharing costs"), and co-executed memory-bound kernels lost about
// 30% (Villarrubia et al., 2026). The model: with k jobs on a GPU, each computes at 1 / (1 + F (k - 1)).

namespace nvlsim {

// F of the measured MPS pair: 1 / (1 + F) = 1 - 0.075.
inline constexpr double kDefaultSharingInterference = 0.075 / (1 - 0.075);
// Bounds of --sharing-interference: a job on a GPU shared by 255 others at F = 10 still advances.
inline constexpr double kMaxSharingInterference = 10;

// The speed, relative to running alone, of a job's computation on a GPU that `jobs` jobs share (>= 1).
inline double shared_gpu_speed(int jobs, double interference) {
  return 1.0 / (1.0 + interference * (jobs - 1));
}

}  // namespace nvlsim
