#pragma once
// One attempt of a job that a failure killed; the job's last attempt is its JobOutcome.

#include <cstddef>
#include <string>
#include <vector>

namespace nvlsim {

struct AttemptRecord {
  std::size_t job = 0;  // job index
  int attempt = 0;      // 0 for the first run, then one more per requeue
  double start = 0;     // s
  double finish = 0;    // s: when the failure killed it
  std::vector<int> gpus;
  double work_done = 0;  // s of the job's trace run time this attempt got through
  double work_kept = 0;  // s of it saved by checkpoints; the rest is redone
  std::string reason;    // what failed
  double gpu_share = 1;  // JobOutcome::gpu_share of this attempt

  double held_gpus() const { return static_cast<double>(gpus.size()) * gpu_share; }
};

}  // namespace nvlsim
