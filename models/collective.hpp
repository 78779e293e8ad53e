#pragma once
// Communication cost of a job's collective, as NCCL runs it on NVL72: hierarchical all-reduce
// (reduce-scatter in each NVLink domain, all-reduce between domains over InfiniBand, all-gather in
// each domain). The plan is made of steps of aggregated flows; the simulator runs them on SimGrid,
// this file also gives their uncontended time in closed form.

#include <span>
#include <vector>

#include "models/fabric_params.hpp"

namespace nvlsim {

enum class Plane { nvlink, infiniband };

// One aggregated flow: `multiplicity` GPUs (or NICs) of the job each send `bytes` at the same time,
// so one representative flow of `bytes` stands for all of them on their private links.
struct PlannedFlow {
  int src_domain = 0;  // index into the job's per-domain counts
  int dst_domain = 0;
  Plane plane = Plane::nvlink;
  double bytes = 0;
  int multiplicity = 1;
};

// Flows of one step run concurrently; the next step starts when all of them are done.
struct CollectiveStep {
  std::vector<PlannedFlow> flows;
};

// Steps of one all-reduce of `message_bytes` per GPU over a job with gpus_per_domain[i] GPUs in its
// i-th domain. Empty when the job has a single GPU.
std::vector<CollectiveStep> plan_all_reduce(std::span<const int> gpus_per_domain, double message_bytes);

// Time of the steps when nothing else shares the links.
double uncontended_time(std::span<const CollectiveStep> steps, const FabricParams& fabric);

// Bytes the steps send in total, and the part that crosses domains.
double total_bytes(std::span<const CollectiveStep> steps);
double cross_domain_bytes(std::span<const CollectiveStep> steps);

// The reference placement of n GPUs: as few domains as possible, GPUs balanced between them.
std::vector<int> reference_placement(int gpus, int gpus_per_domain);

}  // namespace nvlsim
