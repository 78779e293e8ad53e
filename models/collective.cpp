#include "models/collective.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

namespace nvlsim {

bool parse_collective(std::string_view text, Collective& out) {
  if (text == "all-reduce") {
    out = Collective::all_reduce;
    return true;
  }
  if (text == "all-to-all") {
    out = Collective::all_to_all;
    return true;
  }
  return false;
}

std::string_view to_string(Collective collective) {
  return collective == Collective::all_reduce ? "all-reduce" : "all-to-all";
}

std::string_view to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::ring:
      return "ring";
    case Algorithm::nvls:
      return "nvls";
    case Algorithm::tree:
      return "tree";
    case Algorithm::nvls_tree:
      return "nvls-tree";
    case Algorithm::direct:
      return "direct";
  }
  return "?";
}

namespace {

// A GPU's reduce-scatter and all-gather in a domain of n: 2 (n-1)/n of the message over its port.
double ring_share(int n) {
  return 2.0 * (n - 1.0) / n;
}

// Per-node traffic of NCCL's double binary tree between d nodes, in messages each way: with 2 nodes each
// sends and receives the message once; with 3 the middle node is a root in one tree and a leaf in the
// other (1.5); from 4 on some node is an inner node of one tree and a leaf of the other (2).
double tree_share(int d) {
  return d == 2 ? 1.0 : d == 3 ? 1.5 : 2.0;
}

int nics_used(int gpus, const FabricParams& f) {
  return std::min(gpus, f.nccl_nics_per_domain);
}

// One flow per domain with more than one GPU: each GPU sends `bytes_of(n_i)` over NVLink.
template <class Bytes>
void add_nvlink(CollectiveStep& step, std::span<const int> per_domain, double efficiency, Bytes bytes_of) {
  for (int i = 0; i < static_cast<int>(per_domain.size()); ++i) {
    const int n = per_domain[i];
    if (n > 1) step.flows.push_back({i, i, Plane::nvlink, bytes_of(n), n, efficiency});
  }
}

// Domain i's NICs in use carry `per_domain_bytes` between them, towards the next domain.
void add_between(CollectiveStep& step, std::span<const int> per_domain, double per_domain_bytes,
                 const FabricParams& f) {
  const int d = static_cast<int>(per_domain.size());
  for (int i = 0; i < d; ++i) {
    const int k = nics_used(per_domain[i], f);
    step.flows.push_back({i, (i + 1) % d, Plane::infiniband, per_domain_bytes / k, k, f.nic_efficiency});
  }
}

std::vector<CollectiveStep> only(CollectiveStep step) {
  if (step.flows.empty()) return {};
  return {std::move(step)};
}

std::vector<CollectiveStep> all_reduce(Algorithm algorithm, std::span<const int> per_domain, int gpus,
                                       double s, const FabricParams& f) {
  const int d = static_cast<int>(per_domain.size());
  CollectiveStep step;
  switch (algorithm) {
    case Algorithm::nvls:
      if (d != 1 || gpus <= 2 || !f.nvlink_sharp) return {};
      add_nvlink(step, per_domain, f.nvls_efficiency, [s](int n) { return ring_share(n) * s; });
      break;
    case Algorithm::ring:
      add_nvlink(step, per_domain, f.nvlink_efficiency, [s, gpus](int) { return ring_share(gpus) * s; });
      if (d > 1) add_between(step, per_domain, ring_share(gpus) * s, f);
      break;
    case Algorithm::tree:
    case Algorithm::nvls_tree: {
      if (d == 1 || (algorithm == Algorithm::nvls_tree) != f.nvlink_sharp) return {};
      // Inside a domain NVLS where it runs (more than 2 GPUs), else a ring; the levels are pipelined.
      for (int i = 0; i < d; ++i) {
        const int n = per_domain[i];
        const double e = f.nvlink_sharp && n > 2 ? f.nvls_efficiency : f.nvlink_efficiency;
        if (n > 1) step.flows.push_back({i, i, Plane::nvlink, ring_share(n) * s, n, e});
      }
      add_between(step, per_domain, tree_share(d) * s, f);
      break;
    }
    case Algorithm::direct:
      return {};
  }
  return only(std::move(step));
}

std::vector<CollectiveStep> all_to_all(std::span<const int> per_domain, int gpus, double s,
                                       const FabricParams& f) {
  const int d = static_cast<int>(per_domain.size());
  CollectiveStep step;
  add_nvlink(step, per_domain, f.nvlink_efficiency, [gpus, s](int n) { return (n - 1.0) / gpus * s; });
  // A GPU sends s/n to every other GPU: n_j/n of the message to domain j, through its own NIC.
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j)
      if (i != j)
        step.flows.push_back(
            {i, j, Plane::infiniband, per_domain[j] * s / gpus, per_domain[i], f.nic_efficiency});
  return only(std::move(step));
}

}  // namespace

CollectivePlan plan_all_reduce(Algorithm algorithm, std::span<const int> per_domain, double message_bytes,
                               const FabricParams& fabric) {
  const int gpus = std::accumulate(per_domain.begin(), per_domain.end(), 0);
  if (gpus <= 1) return {algorithm, {}};
  return {algorithm, all_reduce(algorithm, per_domain, gpus, message_bytes, fabric)};
}

CollectivePlan plan_collective(Collective collective, std::span<const int> per_domain, double message_bytes,
                               const FabricParams& fabric) {
  const int gpus = std::accumulate(per_domain.begin(), per_domain.end(), 0);
  if (gpus <= 1) return {collective == Collective::all_reduce ? Algorithm::ring : Algorithm::direct, {}};
  if (collective == Collective::all_to_all)
    return {Algorithm::direct, all_to_all(per_domain, gpus, message_bytes, fabric)};
  CollectivePlan best;
  double best_time = std::numeric_limits<double>::infinity();
  for (Algorithm a : {Algorithm::nvls, Algorithm::nvls_tree, Algorithm::tree, Algorithm::ring}) {
    CollectivePlan plan = plan_all_reduce(a, per_domain, message_bytes, fabric);
    if (plan.steps.empty()) continue;
    const double t = uncontended_time(plan.steps, fabric);
    if (t < best_time) {
      best_time = t;
      best = std::move(plan);
    }
  }
  return best;
}

double uncontended_time(std::span<const CollectiveStep> steps, const FabricParams& fabric) {
  double total = 0;
  for (const auto& step : steps) {
    // Wire bytes each representative port sends, by (plane, source domain).
    std::map<std::pair<Plane, int>, double> sent;
    for (const auto& f : step.flows) sent[{f.plane, f.src_domain}] += f.wire_bytes();
    double longest = 0;
    for (const auto& [key, bytes] : sent) {
      const double t = key.first == Plane::nvlink ? 2 * fabric.nvlink_latency + bytes / fabric.nvlink_gpu_bw()
                                                  : 3 * fabric.ib_latency + bytes / fabric.nic_bw;
      longest = std::max(longest, t);
    }
    total += longest;
  }
  return total;
}

double total_bytes(std::span<const CollectiveStep> steps) {
  double sum = 0;
  for (const auto& step : steps)
    for (const auto& f : step.flows) sum += f.bytes * f.multiplicity;
  return sum;
}

double cross_domain_bytes(std::span<const CollectiveStep> steps) {
  double sum = 0;
  for (const auto& step : steps)
    for (const auto& f : step.flows)
      if (f.plane == Plane::infiniband) sum += f.bytes * f.multiplicity;
  return sum;
}

std::vector<int> reference_placement(int gpus, int gpus_per_domain) {
  const int d = std::max(1, (gpus + gpus_per_domain - 1) / gpus_per_domain);
  std::vector<int> counts(d, gpus / d);
  for (int i = 0; i < gpus % d; ++i) ++counts[i];
  return counts;
}

}  // namespace nvlsim
