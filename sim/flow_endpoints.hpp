#pragma once
// Where a planned flow runs on the platform: the SimGrid hosts that stand for its source and destination.

#include <simgrid/s4u/Host.hpp>

#include <vector>

#include "models/collective.hpp"
#include "platforms/platform_loader.hpp"
#include "sim/core/job_attempt.hpp"  // group_by_zone, which gives `group_gpus`

namespace nvlsim {

struct FlowEndpoints {
  simgrid::s4u::Host* from = nullptr;
  simgrid::s4u::Host* to = nullptr;
  int from_gpu = 0;  // the GPU whose host (NVLink) or NIC (InfiniBand) `from` is
  int to_gpu = 0;
};

// NVLink flows inside a group run between its first two GPUs: a job's GPUs never share an NVLink port with
// another job and the switches are non-blocking, so one flow gives every GPU's transfer time. Flows
// between zones run between the two member GPUs they name, one per GPU, as the zones' midplane links are
// shared. InfiniBand flows run from the source group's first NIC to the destination group's first NIC on
// the same rail (else its first NIC), standing for the domain's NICs sending in parallel. `group_gpus`
// lists the job's GPUs per NVLink group (group_by_zone).
FlowEndpoints flow_endpoints(const LoadedPlatform& platform, const std::vector<std::vector<int>>& group_gpus,
                             const PlannedFlow& flow);

}  // namespace nvlsim
