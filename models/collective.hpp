#pragma once
// Communication cost of a job's collective on NVLink domains joined by InfiniBand, as NCCL runs it
// (DOMAIN.md §7). The plan is made of steps of aggregated flows; the simulator runs them on SimGrid, and
// this file also gives their uncontended time.
//
// all-reduce of S bytes per GPU over n_1..n_d GPUs in d domains (n = sum n_i). NCCL treats a domain as one
// node and picks the algorithm its cost model finds fastest; so does nvlsim, among:
//   d = 1, Ring:  2 (n-1)/n S / (e_ring B_nvl)
//   d = 1, NVLS:  2 (n-1)/n S / (e_nvls B_nvl)        (NVLink SHARP, more than 2 GPUs)
//   d > 1, NVLSTree (Tree without SHARP), pipelined, so the slower level decides:
//          max( 2 max_i((n_i-1)/n_i) S / (e B_nvl),  tau(d) S / min_i(k_i e_nic B_nic) )
//          with k_i = min(n_i, K) NICs per domain, tau = 1, 1.5, 2 for d = 2, 3, >= 4 (double binary tree)
//   d > 1, Ring over all n GPUs: 2 (n-1)/n S / min(e_ring B_nvl, min_i k_i e_nic B_nic)
// all-to-all (expert parallel): every GPU of domain i sends (n_i-1)/n S over NVLink and (n-n_i)/n S over
// its own NIC at the same time (NCCL cannot aggregate NICs for all-to-all).
// The efficiencies e turn line rates into what NCCL reaches: a flow occupies its links for bytes / e.
//
// Zones (NVL576): a domain's GPUs are one switch hop apart only inside a zone; between zones they cross
// the midplane, whose link per zone carries inter_zone_bw per GPU of the zone. Where a domain holds m_1..m_z
// GPUs of a job in z zones, each level above runs inside each zone, and a third level joins the zones:
// all-reduce adds a ring between the zones (each zone hands the next its share, spread over the GPUs of
// both, one flow per GPU), pipelined with the others; all-to-all sends m_j'/n S from every GPU to zone j'
// over the midplane.
// The forms and the assumptions behind them: docs/model.md, "Zones".

#include <span>
#include <string_view>
#include <vector>

#include "models/fabric_params.hpp"

namespace nvlsim {

enum class Collective { all_reduce, all_to_all };

// "all-reduce" / "all-to-all"; false when unknown.
bool parse_collective(std::string_view text, Collective& out);
std::string_view to_string(Collective collective);

// How the collective runs: NCCL's algorithm names; `direct` is the all-to-all's one exchange.
enum class Algorithm { ring, nvls, tree, nvls_tree, direct };
std::string_view to_string(Algorithm algorithm);

enum class Plane { nvlink, infiniband };

// A job's GPUs on the NVLink fabric, in groups one switch hop apart: a domain, or a zone of a domain that
// has zones. Groups come domain by domain; `domain` numbers the job's domains from 0.
struct GpuGroup {
  int gpus = 0;
  int domain = 0;

  bool operator==(const GpuGroup&) const = default;
};

// One aggregated flow: `multiplicity` GPUs (or NICs) of the job's source group each send `bytes` at the
// same time, so one representative flow stands for all of them. At `efficiency` of the line rate it
// occupies its links as `wire_bytes()` would at full rate. A flow inside a group runs from its first GPU
// to its second; an InfiniBand flow from the source group's first NIC; a flow between zones (NVLink,
// between two groups) from the source group's GPU `src_member` to the destination's GPU `dst_member`,
// for that GPU alone (multiplicity 1), since the zone's link is shared by all its GPUs.
struct PlannedFlow {
  int src_group = 0;  // index into the job's groups
  int dst_group = 0;
  Plane plane = Plane::nvlink;
  double bytes = 0;
  int multiplicity = 1;
  double efficiency = 1.0;
  int src_member = 0;
  int dst_member = 0;

  double wire_bytes() const { return bytes / efficiency; }
  bool between_zones() const { return plane == Plane::nvlink && src_group != dst_group; }
};

// Flows of one step run concurrently; the next step starts when all of them are done.
struct CollectiveStep {
  std::vector<PlannedFlow> flows;
};

struct CollectivePlan {
  Algorithm algorithm = Algorithm::ring;
  std::vector<CollectiveStep> steps;  // empty when the job has a single GPU
};

// The plan NCCL would choose for one collective of `message_bytes` per GPU over a job whose GPUs form
// `groups`: the fastest applicable algorithm when uncontended.
CollectivePlan plan_collective(Collective collective, std::span<const GpuGroup> groups, double message_bytes,
                               const FabricParams& fabric);
// The same with gpus_per_domain[i] GPUs in the job's i-th domain, each domain one group (no zones).
CollectivePlan plan_collective(Collective collective, std::span<const int> gpus_per_domain,
                               double message_bytes, const FabricParams& fabric);

// One all-reduce algorithm, forced (as NCCL_ALGO does); empty steps when it does not apply to the
// placement (NVLS: one domain of more than 2 GPUs with SHARP; the hierarchical two: several domains).
CollectivePlan plan_all_reduce(Algorithm algorithm, std::span<const GpuGroup> groups, double message_bytes,
                               const FabricParams& fabric);
CollectivePlan plan_all_reduce(Algorithm algorithm, std::span<const int> gpus_per_domain,
                               double message_bytes, const FabricParams& fabric);

// Time of the steps when nothing else shares the links: per step, the most loaded link side's wire bytes
// over its bandwidth, plus the latency of the routes crossing it. The links are each representative
// GPU's port (out and in), each zone's midplane link (out and in) and each source group's representative
// NIC, so a group's flows add up at its representative.
double uncontended_time(std::span<const CollectiveStep> steps, const FabricParams& fabric);

// Bytes the steps send in total (payload, without the efficiencies), and the part that crosses domains.
double total_bytes(std::span<const CollectiveStep> steps);
double cross_domain_bytes(std::span<const CollectiveStep> steps);

// The reference placement of n GPUs: as few domains as possible, GPUs balanced between them.
std::vector<int> reference_placement(int gpus, int gpus_per_domain);
// The same as groups, each domain's GPUs in as few zones of `gpus_per_zone` as possible, balanced.
std::vector<GpuGroup> reference_groups(int gpus, int gpus_per_domain, int gpus_per_zone);

// Each domain one group: the groups of a platform without zones.
std::vector<GpuGroup> domain_groups(std::span<const int> gpus_per_domain);

}  // namespace nvlsim
