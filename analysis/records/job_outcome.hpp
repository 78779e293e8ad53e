#pragma once
// What happened to one trace job under one policy: the record every output is computed from.

#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace nvlsim {

enum class FinalState {
  completed_successfully,
  completed_failed,
  completed_walltime_reached,
  completed_killed,
  rejected,
};

// Batsim's spelling, e.g. "COMPLETED_SUCCESSFULLY".
std::string_view to_string(FinalState state);

struct JobOutcome {
  FinalState state = FinalState::rejected;
  double start = -1;   // s; -1 when the job never started
  double finish = -1;  // s
  std::vector<int> gpus;
  // The part of each GPU of `gpus` the job holds: 1 for whole GPUs, K/N for K of a GPU's N shards (K/100
  // under MPS). GPU-time measures (busy, lost, slowdown) count gpus x gpu_share.
  double gpu_share = 1;
  int domains = 0;
  int restarts = 0;
  double comm_bytes = 0;
  double cross_domain_bytes = 0;
  // Time the job's communication would take with all its GPUs in one ideal NVLink domain, over the time it
  // took; NaN for jobs that never communicate.
  double bw_efficiency = std::numeric_limits<double>::quiet_NaN();
  std::string reason;  // why a job was rejected or ended early; empty otherwise

  // The GPUs the job holds, a shared GPU counted by the job's share of it.
  double held_gpus() const { return static_cast<double>(gpus.size()) * gpu_share; }
};

}  // namespace nvlsim
