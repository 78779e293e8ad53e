#include "models/collective.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

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

// A job's groups seen by domain.
struct Domain {
  int gpus = 0;
  int first_group = 0;
  int zones = 0;  // its groups
};
using Domains = std::vector<Domain>;

int count(const Domains& d) {
  return static_cast<int>(d.size());
}

Domains domains_of(std::span<const GpuGroup> groups) {
  Domains d;
  for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
    if (groups[g].domain == count(d)) d.push_back({0, g, 0});
    d.back().gpus += groups[g].gpus;
    ++d.back().zones;
  }
  return d;
}

// One flow per group with more than one GPU: each of its m GPUs sends `bytes_of(group)` over NVLink at
// `efficiency_of(m)`.
template <class Bytes, class Efficiency>
void add_in_group(CollectiveStep& step, std::span<const GpuGroup> groups, Efficiency efficiency_of,
                  Bytes bytes_of) {
  for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
    const int m = groups[g].gpus;
    if (m > 1) step.flows.push_back({g, g, Plane::nvlink, bytes_of(groups[g]), m, efficiency_of(m)});
  }
}

// `total` bytes from zone group `from` to zone group `to` over the midplane, spread evenly over the GPUs of
// both: max(m_from, m_to) flows, the r-th from GPU r mod m_from to GPU r mod m_to, one GPU's transfer each.
void add_between_zones(CollectiveStep& step, std::span<const GpuGroup> groups, int from, int to, double total,
                       const FabricParams& f) {
  const int m_from = groups[from].gpus;
  const int m_to = groups[to].gpus;
  const int flows = std::max(m_from, m_to);
  for (int r = 0; r < flows; ++r)
    step.flows.push_back(
        {from, to, Plane::nvlink, total / flows, 1, f.nvlink_efficiency, r % m_from, r % m_to});
}

// The ring between a domain's zones: zone j hands `zone_bytes(domain)` to the next zone of its domain.
template <class Bytes>
void add_zone_ring(CollectiveStep& step, std::span<const GpuGroup> groups, const Domains& d, Bytes zone_bytes,
                   const FabricParams& f) {
  for (int i = 0; i < count(d); ++i) {
    if (d[i].zones < 2) continue;
    for (int j = 0; j < d[i].zones; ++j)
      add_between_zones(step, groups, d[i].first_group + j, d[i].first_group + (j + 1) % d[i].zones,
                        zone_bytes(i), f);
  }
}

// Domain i's NICs in use carry `per_domain_bytes` between them, towards the next domain.
void add_between(CollectiveStep& step, const Domains& d, double per_domain_bytes, const FabricParams& f) {
  for (int i = 0; i < count(d); ++i) {
    const int k = nics_used(d[i].gpus, f);
    step.flows.push_back({d[i].first_group, d[(i + 1) % count(d)].first_group, Plane::infiniband,
                          per_domain_bytes / k, k, f.nic_efficiency});
  }
}

std::vector<CollectiveStep> only(CollectiveStep step) {
  if (step.flows.empty()) return {};
  return {std::move(step)};
}

std::vector<CollectiveStep> all_reduce(Algorithm algorithm, std::span<const GpuGroup> groups,
                                       const Domains& d, int gpus, double s, const FabricParams& f) {
  // NVLS inside a group where it runs (more than 2 GPUs), else a ring.
  const auto nvls_or_ring = [&f](int m) {
    return f.nvlink_sharp && m > 2 ? f.nvls_efficiency : f.nvlink_efficiency;
  };
  CollectiveStep step;
  switch (algorithm) {
    case Algorithm::nvls:
      if (count(d) != 1 || gpus <= 2 || !f.nvlink_sharp) return {};
      add_in_group(step, groups, nvls_or_ring, [s](const GpuGroup& g) { return ring_share(g.gpus) * s; });
      add_zone_ring(
          step, groups, d, [&d, s](int i) { return ring_share(d[i].zones) * s; }, f);
      break;
    case Algorithm::ring:
      // Every GPU sends 2 (n-1)/n S to the next; of a zone's m GPUs' traffic, a 1/m share goes on to the
      // next zone, over the midplane.
      add_in_group(
          step, groups, [&f](int) { return f.nvlink_efficiency; },
          [&d, s, gpus](const GpuGroup& g) {
            const double sent = ring_share(gpus) * s;
            return d[g.domain].zones > 1 ? sent * (g.gpus - 1.0) / g.gpus : sent;
          });
      add_zone_ring(
          step, groups, d, [s, gpus](int) { return ring_share(gpus) * s; }, f);
      if (count(d) > 1) add_between(step, d, ring_share(gpus) * s, f);
      break;
    case Algorithm::tree:
    case Algorithm::nvls_tree:
      if (count(d) == 1 || (algorithm == Algorithm::nvls_tree) != f.nvlink_sharp) return {};
      // The levels are pipelined: zone, between zones, between domains.
      add_in_group(step, groups, nvls_or_ring, [s](const GpuGroup& g) { return ring_share(g.gpus) * s; });
      add_zone_ring(
          step, groups, d, [&d, s](int i) { return ring_share(d[i].zones) * s; }, f);
      add_between(step, d, tree_share(count(d)) * s, f);
      break;
    case Algorithm::direct:
      return {};
  }
  return only(std::move(step));
}

std::vector<CollectiveStep> all_to_all(std::span<const GpuGroup> groups, const Domains& d, int gpus, double s,
                                       const FabricParams& f) {
  CollectiveStep step;
  add_in_group(
      step, groups, [&f](int) { return f.nvlink_efficiency; },
      [gpus, s](const GpuGroup& g) { return (g.gpus - 1.0) / gpus * s; });
  // A GPU sends s/n to every other GPU: m_b/n of the message to zone b of its domain over the midplane,
  for (int i = 0; i < count(d); ++i)
    for (int a = d[i].first_group; a < d[i].first_group + d[i].zones; ++a)
      for (int b = d[i].first_group; b < d[i].first_group + d[i].zones; ++b)
        if (a != b) add_between_zones(step, groups, a, b, groups[a].gpus * (groups[b].gpus * s / gpus), f);
  // and n_j/n of it to domain j, through its own NIC.
  for (int i = 0; i < count(d); ++i)
    for (int j = 0; j < count(d); ++j)
      if (i != j)
        step.flows.push_back({d[i].first_group, d[j].first_group, Plane::infiniband, d[j].gpus * s / gpus,
                              d[i].gpus, f.nic_efficiency});
  return only(std::move(step));
}

int total_gpus(std::span<const GpuGroup> groups) {
  int n = 0;
  for (const auto& g : groups) n += g.gpus;
  return n;
}

}  // namespace

std::vector<GpuGroup> domain_groups(std::span<const int> gpus_per_domain) {
  std::vector<GpuGroup> groups;
  for (int i = 0; i < static_cast<int>(gpus_per_domain.size()); ++i)
    groups.push_back({gpus_per_domain[i], i});
  return groups;
}

CollectivePlan plan_all_reduce(Algorithm algorithm, std::span<const GpuGroup> groups, double message_bytes,
                               const FabricParams& fabric) {
  const int gpus = total_gpus(groups);
  if (gpus <= 1) return {algorithm, {}};
  return {algorithm, all_reduce(algorithm, groups, domains_of(groups), gpus, message_bytes, fabric)};
}

CollectivePlan plan_all_reduce(Algorithm algorithm, std::span<const int> gpus_per_domain,
                               double message_bytes, const FabricParams& fabric) {
  return plan_all_reduce(algorithm, domain_groups(gpus_per_domain), message_bytes, fabric);
}

CollectivePlan plan_collective(Collective collective, std::span<const GpuGroup> groups, double message_bytes,
                               const FabricParams& fabric) {
  const int gpus = total_gpus(groups);
  if (gpus <= 1) return {collective == Collective::all_reduce ? Algorithm::ring : Algorithm::direct, {}};
  const Domains d = domains_of(groups);
  if (collective == Collective::all_to_all)
    return {Algorithm::direct, all_to_all(groups, d, gpus, message_bytes, fabric)};
  CollectivePlan best;
  double best_time = std::numeric_limits<double>::infinity();
  for (Algorithm a : {Algorithm::nvls, Algorithm::nvls_tree, Algorithm::tree, Algorithm::ring}) {
    CollectivePlan plan{a, all_reduce(a, groups, d, gpus, message_bytes, fabric)};
    if (plan.steps.empty()) continue;
    const double t = uncontended_time(plan.steps, fabric);
    if (t < best_time) {
      best_time = t;
      best = std::move(plan);
    }
  }
  return best;
}

CollectivePlan plan_collective(Collective collective, std::span<const int> gpus_per_domain,
                               double message_bytes, const FabricParams& fabric) {
  return plan_collective(collective, domain_groups(gpus_per_domain), message_bytes, fabric);
}

namespace {

// A side of a link a step loads: a representative GPU's port out or in, a zone link out or in, a group's
// representative NIC out.
enum class Side { port_out, port_in, zone_out, zone_in, nic_out };

struct Load {
  Side side;
  int group;
  int member;
  double wire_bytes;
  double latency;  // of the route crossing it

  auto key() const { return std::tie(side, group, member); }
};

}  // namespace

double uncontended_time(std::span<const CollectiveStep> steps, const FabricParams& fabric) {
  double total = 0;
  std::vector<Load> loads;
  for (const auto& step : steps) {
    loads.clear();
    bool zones = false;
    for (const auto& f : step.flows) zones = zones || f.between_zones();
    const auto add = [&loads](Side side, int group, int member, const PlannedFlow& f, double latency) {
      loads.push_back({side, group, member, f.wire_bytes(), latency});
    };
    for (const auto& f : step.flows) {
      if (f.plane == Plane::infiniband) {
        add(Side::nic_out, f.src_group, 0, f, 3 * fabric.ib_latency);
      } else if (!f.between_zones()) {
        add(Side::port_out, f.src_group, 0, f, 2 * fabric.nvlink_latency);
        // Only flows between zones can load a group's second GPU's port in beyond what its first's port
        // out carries.
        if (zones) add(Side::port_in, f.src_group, 1, f, 2 * fabric.nvlink_latency);
      } else {
        // Port, zone link, zone link, port: two switch hops more than inside a zone.
        const double latency = 4 * fabric.nvlink_latency;
        add(Side::port_out, f.src_group, f.src_member, f, latency);
        add(Side::zone_out, f.src_group, 0, f, latency);
        add(Side::zone_in, f.dst_group, 0, f, latency);
        add(Side::port_in, f.dst_group, f.dst_member, f, latency);
      }
    }
    // Stable, so that each side's bytes add up in the flows' order. Most steps load a few sides: an
    // insertion sort then spares stable_sort's buffer.
    const auto before = [](const Load& a, const Load& b) { return a.key() < b.key(); };
    if (loads.size() <= 32)
      for (std::size_t i = 1; i < loads.size(); ++i)
        for (std::size_t j = i; j > 0 && before(loads[j], loads[j - 1]); --j)
          std::swap(loads[j], loads[j - 1]);
    else
      std::stable_sort(loads.begin(), loads.end(), before);
    double longest = 0;
    for (std::size_t i = 0; i < loads.size();) {
      double bytes = 0, latency = 0;
      std::size_t j = i;
      for (; j < loads.size() && loads[j].key() == loads[i].key(); ++j) {
        bytes += loads[j].wire_bytes;
        latency = std::max(latency, loads[j].latency);
      }
      const Side side = loads[i].side;
      const double bw = side == Side::nic_out                             ? fabric.nic_bw
                        : side == Side::zone_out || side == Side::zone_in ? fabric.zone_link_bw()
                                                                          : fabric.nvlink_gpu_bw();
      longest = std::max(longest, latency + bytes / bw);
      i = j;
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

std::vector<GpuGroup> reference_groups(int gpus, int gpus_per_domain, int gpus_per_zone) {
  std::vector<GpuGroup> groups;
  const auto domains = reference_placement(gpus, gpus_per_domain);
  for (int i = 0; i < static_cast<int>(domains.size()); ++i)
    for (int zone_gpus : reference_placement(domains[i], gpus_per_zone)) groups.push_back({zone_gpus, i});
  return groups;
}

}  // namespace nvlsim
