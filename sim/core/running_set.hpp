#pragma once
// The jobs running now: the one place that gives and takes back allocations, so the cluster state, the
// GPUs' owners, the busy count, the state records' dirty trays and the backfill reservation's replay of
// the running jobs agree.
// Under --gpu-sharing several jobs may hold shares of one GPU, so a GPU has a list of owners.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "schedulers/allocation.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/reservation_replay.hpp"
#include "sim/core/gpu_sharing.hpp"
#include "sim/core/state_sampler.hpp"

namespace nvlsim {

class RunningSet {
 public:
  // For `jobs` job indices on a cluster of this shape whose GPUs are shared as `sharing` says (their
  // shares counted by ClusterState); changes are reported to `sampler`. The state keeps counts for
  // `tray_groups` (the policy's, PlacementPolicy::tray_groups) when given.
  RunningSet(const ClusterShape& shape, const SharingConfig& sharing, std::size_t jobs, StateSampler& sampler,
             TrayGroups tray_groups = nullptr);

  // Gives the allocation to the job until remove(job); `expected_end` is what backfill plans with.
  void add(std::size_t job, double expected_end, const Allocation& allocation);
  // Takes the running job's allocation back.
  void remove(std::size_t job);
  // Marks GPUs down (or up again); running jobs on them must be removed by the caller.
  void set_down(const std::vector<int>& gpus, bool down);

  bool contains(std::size_t job) const { return running_[job] != 0; }
  // The running job's allocation, as the replay keeps it (the one copy a running job has).
  const Allocation& allocation(std::size_t job) const { return replay_.allocation(job); }
  // The running jobs owning any of the GPUs, whole or in shares, ascending, each once.
  std::vector<std::size_t> owners(const std::vector<int>& gpus) const;
  // The running jobs on one GPU, in the order they started: several only when they hold shares of it.
  std::span<const std::size_t> owners_of(int gpu) const {
    if (shared_) return owners_[gpu];
    return sole_[gpu] == kNoJob ? std::span<const std::size_t>{} : std::span(&sole_[gpu], 1);
  }

  const ClusterState& state() const { return state_; }
  // The state lent to a scheduling pass, which must give it back as it found it (easy_backfill does).
  ClusterState& state_for_pass() { return state_; }
  // The running jobs' replay lent to a scheduling pass, which tells it the jobs it starts.
  ReservationReplay& replay_for_pass() { return replay_; }
  bool empty() const { return count_ == 0; }
  // GPUs a job runs on, whole or in shares: a GPU shared by several jobs counts once.
  int busy_gpus() const { return state_.busy_gpus(); }

 private:
  ClusterState state_;
  ReservationReplay replay_;  // the backfill reservation's future, carried from pass to pass
  StateSampler& sampler_;
  std::vector<std::uint8_t> running_;  // by job index
  std::size_t count_ = 0;
  static constexpr std::size_t kNoJob = SIZE_MAX;
  bool shared_;  // several jobs may hold shares of a GPU
  // By GPU, without sharing: the job running on it or kNoJob, in one array that a job's GPUs read in turn
  // (a list per GPU cost two cache misses per GPU at each start and end on 72,000 GPUs).
  std::vector<std::size_t> sole_;
  // By GPU, with sharing: the jobs running on it, in the order they started.
  std::vector<std::vector<std::size_t>> owners_;
};

}  // namespace nvlsim
