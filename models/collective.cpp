#include "models/collective.hpp"

#include <algorithm>
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

namespace {

// One in-domain phase: every GPU of domain i with n_i > 1 sends `bytes_of(n_i)` over NVLink.
template <class Bytes>
CollectiveStep in_domain(std::span<const int> per_domain, Bytes bytes_of) {
  CollectiveStep step;
  for (int i = 0; i < static_cast<int>(per_domain.size()); ++i) {
    const int n = per_domain[i];
    if (n > 1) step.flows.push_back({i, i, Plane::nvlink, bytes_of(n), n});
  }
  return step;
}

std::vector<CollectiveStep> all_reduce(std::span<const int> per_domain, int gpus, double s, bool sharp) {
  const int d = static_cast<int>(per_domain.size());
  if (d == 1) {
    const double bytes = sharp ? s : 2.0 * (gpus - 1.0) / gpus * s;
    return {{{{0, 0, Plane::nvlink, bytes, gpus}}}};
  }
  // Reduce-scatter and all-gather each move (n_i-1)/n_i of the message, or half of it with SHARP.
  const auto half = [s, sharp](int n) { return sharp ? s / 2 : (n - 1.0) / n * s; };
  CollectiveStep between;
  for (int i = 0; i < d; ++i) {
    // Domain i's n_i NICs each carry 2 (d-1)/d of its shard of size s/n_i, so the smallest domain's
    // NICs carry the most.
    between.flows.push_back(
        {i, (i + 1) % d, Plane::infiniband, 2.0 * (d - 1.0) / d * s / per_domain[i], per_domain[i]});
  }
  std::vector<CollectiveStep> steps = {in_domain(per_domain, half), std::move(between),
                                       in_domain(per_domain, half)};
  std::erase_if(steps, [](const CollectiveStep& step) { return step.flows.empty(); });
  return steps;
}

std::vector<CollectiveStep> all_to_all(std::span<const int> per_domain, int gpus, double s) {
  const int d = static_cast<int>(per_domain.size());
  CollectiveStep step = in_domain(per_domain, [gpus, s](int n) { return (n - 1.0) / gpus * s; });
  // A GPU sends s/n to every other GPU: n_j/n of the message to domain j.
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j)
      if (i != j) step.flows.push_back({i, j, Plane::infiniband, per_domain[j] * s / gpus, per_domain[i]});
  return {std::move(step)};
}

}  // namespace

std::vector<CollectiveStep> plan_collective(Collective collective, std::span<const int> per_domain,
                                            double message_bytes, bool sharp) {
  const int gpus = std::accumulate(per_domain.begin(), per_domain.end(), 0);
  if (gpus <= 1) return {};
  return collective == Collective::all_reduce ? all_reduce(per_domain, gpus, message_bytes, sharp)
                                              : all_to_all(per_domain, gpus, message_bytes);
}

double uncontended_time(std::span<const CollectiveStep> steps, const FabricParams& fabric) {
  double total = 0;
  for (const auto& step : steps) {
    // Bytes each representative port sends, by (plane, source domain).
    std::map<std::pair<Plane, int>, double> sent;
    for (const auto& f : step.flows) sent[{f.plane, f.src_domain}] += f.bytes;
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
