#include "models/collective.hpp"

#include <algorithm>

namespace nvlsim {

namespace {

// Ring phase inside each domain: every GPU sends (n_i - 1)/n_i of the message.
CollectiveStep intra_domain_ring(std::span<const int> per_domain, double message_bytes) {
  CollectiveStep step;
  for (int i = 0; i < static_cast<int>(per_domain.size()); ++i) {
    const int n = per_domain[i];
    if (n > 1) step.flows.push_back({i, i, Plane::nvlink, (n - 1.0) / n * message_bytes, n});
  }
  return step;
}

}  // namespace

std::vector<CollectiveStep> plan_all_reduce(std::span<const int> per_domain, double message_bytes) {
  int gpus = 0;
  for (int n : per_domain) gpus += n;
  if (gpus <= 1) return {};
  const int d = static_cast<int>(per_domain.size());
  if (d == 1) {
    // Reduce-scatter then all-gather on one ring: 2 (n-1)/n of the message per GPU.
    return {{{{0, 0, Plane::nvlink, 2.0 * (gpus - 1.0) / gpus * message_bytes, gpus}}}};
  }
  std::vector<CollectiveStep> steps;
  steps.push_back(intra_domain_ring(per_domain, message_bytes));
  // Ring all-reduce between domains on the shards: domain i's n_i NICs each carry 2 (d-1)/d of
  // its shard of size message/n_i, so the smallest domain's NICs carry the most.
  CollectiveStep inter;
  for (int i = 0; i < d; ++i) {
    inter.flows.push_back({i, (i + 1) % d, Plane::infiniband,
                           2.0 * (d - 1.0) / d * message_bytes / per_domain[i], per_domain[i]});
  }
  steps.push_back(std::move(inter));
  steps.push_back(intra_domain_ring(per_domain, message_bytes));
  std::erase_if(steps, [](const CollectiveStep& s) { return s.flows.empty(); });
  return steps;
}

double uncontended_time(std::span<const CollectiveStep> steps, const FabricParams& fabric) {
  double total = 0;
  for (const auto& step : steps) {
    double longest = 0;
    for (const auto& f : step.flows) {
      const double t = f.plane == Plane::nvlink ? 2 * fabric.nvlink_latency + f.bytes / fabric.nvlink_gpu_bw()
                                                : 3 * fabric.ib_latency + f.bytes / fabric.nic_bw;
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
