#pragma once
// Records the cluster's state at every change (analysis/records/state_sample.hpp) during a replay.

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "analysis/records/state_sample.hpp"
#include "models/fabric_params.hpp"
#include "schedulers/allocation.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/job_request.hpp"

namespace nvlsim {

class StateSampler {
 public:
  // The admitted jobs' requests (`requests` by job index) give the size distribution FGD fragmentation is
  // measured against: the GPUs the jobs ask for, which whole-tray requests may round up, and the shares of
  // a GPU that share requests ask for.
  StateSampler(const ClusterShape& shape, const FabricParams& fabric, std::span<const JobRequest> requests,
               std::span<const std::size_t> admitted);

  // Trays whose free GPUs changed since the last record.
  void touch(const Allocation& allocation);
  // The state from `now` on, with `queued_jobs` waiting for `queued_gpus` GPUs in all.
  // `placement_blocked` is what the last scheduling pass reported;
  // `failure_stranded_gpus` are healthy GPUs the policy cannot use because of a failure. Bytes are
  // what the planes carried since the previous record; they make that record's utilization. A record
  // at the same time as the previous one replaces it.
  void record(double now, const ClusterState& state, int queued_jobs, std::int64_t queued_gpus, int busy_gpus,
              bool placement_blocked, int failure_stranded_gpus, double nvlink_bytes, double ib_bytes);

  std::vector<StateSample> take() { return std::move(samples_); }

 private:
  double fgd_fragments(const ClusterState& state, double shared_free) const;
  double shared_free_gpus(const ClusterState& state) const;
  void refresh_runs(const ClusterState& state);
  void refresh_shared(const ClusterState& state);
  void mark_dirty(int domain);
  void mark_gpu_dirty(int gpu);

  ClusterShape shape_;
  double nvlink_capacity_;                            // bytes/s over all NVLink ports, one direction
  double ib_capacity_;                                // bytes/s over all NICs, one direction
  std::vector<std::pair<int, double>> size_shares_;   // whole-GPU requests: (GPUs, share of jobs)
  std::vector<std::pair<int, double>> share_shares_;  // share requests: (shares per GPU, share of jobs)
  // Kept only when some request asks shares: per GPU, the free shares of a GPU share jobs hold part of
  // (0 for any other GPU); per count, how many GPUs have that many; the GPUs changed since the last record.
  std::vector<std::uint8_t> shared_free_;
  std::vector<long> gpus_by_shared_free_;
  std::vector<std::uint8_t> dirty_gpu_;
  std::vector<int> dirty_gpus_;
  std::vector<int> largest_run_;     // per domain
  std::vector<int> domains_by_run_;  // per run length: domains whose largest run it is
  std::vector<std::uint8_t> dirty_domain_;
  std::vector<int> dirty_list_;  // the domains dirty_domain_ marks, so a record visits only those
  std::vector<StateSample> samples_;
};

}  // namespace nvlsim
