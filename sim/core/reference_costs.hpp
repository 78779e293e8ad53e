#pragma once
// What a job's reference placement (its GPUs packed into as few domains as possible) pays for one round
// of its collective, split into a fixed part and a part per byte of message. plan_rounds sizes every
// job's message from it, and it depends only on the collective and the job's GPU count, so a replay
// computes it once per pair instead of planning two collectives at every job start.

#include <cstdint>
#include <unordered_map>

#include "models/collective.hpp"
#include "platforms/platform_spec.hpp"

namespace nvlsim {

struct ReferenceCost {
  double fixed = 0;     // s: the round's time for an empty message
  double per_byte = 0;  // s per byte of message
};

class ReferenceCosts {
 public:
  // For jobs on `platform`, which must outlive this.
  explicit ReferenceCosts(const PlatformSpec& platform) : platform_(platform) {}
  ReferenceCost of(Collective collective, int gpus);

 private:
  const PlatformSpec& platform_;
  std::unordered_map<std::uint64_t, ReferenceCost> known_;  // by collective and GPU count
};

}  // namespace nvlsim
