#pragma once
// Communication cost of a job's collective on NVL72 racks. The plan is made of steps of aggregated
// flows; the simulator runs them on SimGrid, and this file also gives their uncontended time.
//
// all-reduce, as NCCL runs it across NVLink domains: reduce-scatter inside each domain over NVLink, ring
// all-reduce of the shards between domains over InfiniBand, all-gather inside each domain. For message
// size S per GPU and n_1..n_d GPUs in d domains (n = sum n_i), uncontended:
//   d = 1: 2 (n-1)/n S / B_nvl
//   d > 1: 2 max_i((n_i-1)/n_i) S / B_nvl + 2 (d-1)/d S / (n_min B_ib)
// With NVLink SHARP the switches reduce in place and the in-domain part costs S / B_nvl.
// all-to-all (expert parallel): every GPU of domain i sends (n_i-1)/n S over NVLink and (n-n_i)/n S over
// InfiniBand at the same time.

#include <span>
#include <string_view>
#include <vector>

#include "models/fabric_params.hpp"

namespace nvlsim {

enum class Collective { all_reduce, all_to_all };

// "all-reduce" / "all-to-all"; nullopt-like false when unknown.
bool parse_collective(std::string_view text, Collective& out);
std::string_view to_string(Collective collective);

enum class Plane { nvlink, infiniband };

// One aggregated flow: `multiplicity` GPUs (or NICs) of the job's source domain each send `bytes` at the
// same time, so one representative flow of `bytes` stands for all of them.
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

// Steps of one collective of `message_bytes` per GPU over a job with gpus_per_domain[i] GPUs in its i-th
// domain. Empty when the job has a single GPU.
std::vector<CollectiveStep> plan_collective(Collective collective, std::span<const int> gpus_per_domain,
                                            double message_bytes, bool sharp);

// Time of the steps when nothing else shares the links. A source domain's flows share its representative
// NIC or port, so their bytes add up there.
double uncontended_time(std::span<const CollectiveStep> steps, const FabricParams& fabric);

// Bytes the steps send in total, and the part that crosses domains.
double total_bytes(std::span<const CollectiveStep> steps);
double cross_domain_bytes(std::span<const CollectiveStep> steps);

// The reference placement of n GPUs: as few domains as possible, GPUs balanced between them.
std::vector<int> reference_placement(int gpus, int gpus_per_domain);

}  // namespace nvlsim
