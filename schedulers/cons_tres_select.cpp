#include "schedulers/cons_tres_select.hpp"

#include <algorithm>
#include <cstddef>

namespace nvlsim::cons_tres {
namespace {

// Slurm's scheduling weight keeps the node's configured weight above the low byte, which cons_tres sets
// to 0xff minus the GPUs the node offers the job, so that nodes offering more come first.
constexpr int kWeightByte = 0xff;

// A run of consecutive offered nodes of one weight ("consecutive set" in job_test.c).
struct NodeRun {
  std::size_t first = 0;  // index into the offers
  std::size_t end = 0;
  int cpus = 0;
  int nodes = 0;
  int gpus = 0;
  int weight = 0;
};

void runs_of(std::span<const NodeOffer> nodes, std::vector<NodeRun>& runs) {
  runs.clear();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeOffer& n = nodes[i];
    const bool continues = !runs.empty() && runs.back().end == i && nodes[i - 1].tray + 1 == n.tray &&
                           runs.back().weight == n.weight;
    if (!continues) runs.push_back({i, i, 0, 0, 0, n.weight});
    NodeRun& run = runs.back();
    run.end = i + 1;
    run.cpus += n.cpus;
    ++run.nodes;
    run.gpus += n.gpus;
  }
}

bool suffices(const NodeRun& run, const Demand& demand) {
  return run.cpus >= demand.cpus && run.nodes >= demand.nodes &&
         demand.gpus_taken + run.gpus >= demand.gpus_per_job;
}

// The run each round takes from, as _eval_nodes ranks them: lower weight first; at equal weight, in index
// order, the first run that suffices, then one that suffices with fewer CPUs, or, while none suffices, one
// with more CPUs (Slurm's comparison literally: a larger run that does not suffice also displaces one that
// does, so the ranking is no order and only a scan in index order gives it). A scan per round made a job
// that takes many runs quadratic, so after a few rounds the picker sorts the runs of each weight by CPUs,
// nodes and GPUs and answers a round where no run of the lowest weight can suffice from them (the scan's
// answer is then the first run with the most CPUs), scanning only when one may suffice. Most jobs take
// one or two rounds and never pay for the sort. Consumed runs have nodes == 0.
class RunPicker {
 public:
  explicit RunPicker(std::span<const NodeRun> runs) : runs_(runs) {}

  // The run to take from next, or -1 when none is left.
  int pick(const Demand& demand) {
    if (rounds_ < kScanRounds) {
      ++rounds_;
      return scan(0, runs_.size(), demand, [](std::size_t k) { return static_cast<int>(k); });
    }
    if (classes_.empty()) index();
    while (next_class_ < classes_.size()) {
      Class& c = classes_[next_class_];
      const int most_cpus = live_head(by_cpus_, c.cpus, c.end);
      if (most_cpus < 0) {
        ++next_class_;
        continue;
      }
      const int most_nodes = live_head(by_nodes_, c.nodes, c.end);
      const int most_gpus = live_head(by_gpus_, c.gpus, c.end);
      const bool none_suffices = runs_[most_cpus].cpus < demand.cpus ||
                                 runs_[most_nodes].nodes < demand.nodes ||
                                 demand.gpus_taken + runs_[most_gpus].gpus < demand.gpus_per_job;
      if (none_suffices) return most_cpus;
      return scan(c.first, c.end, demand, [this](std::size_t k) { return by_index_[k]; });
    }
    return -1;
  }

 private:
  struct Class {  // the runs of one weight: [first, end) of each order
    std::size_t first, end;
    std::size_t cpus, nodes, gpus;  // cursors: no live run before them in by_cpus_, by_nodes_, by_gpus_
  };

  // The first live run of `order` from `cursor`, moving the cursor past consumed runs; -1 when none.
  int live_head(const std::vector<int>& order, std::size_t& cursor, std::size_t end) const {
    while (cursor < end && runs_[order[cursor]].nodes == 0) ++cursor;
    return cursor < end ? order[cursor] : -1;
  }

  // Slurm's scan over the runs run_at(first) .. run_at(end - 1), in index order.
  template <typename RunAt>
  int scan(std::size_t first, std::size_t end, const Demand& demand, RunAt run_at) const {
    int best = -1;
    bool best_suffices = false;
    for (std::size_t k = first; k < end; ++k) {
      const int i = run_at(k);
      const NodeRun& run = runs_[i];
      if (run.nodes == 0) continue;
      const bool ok = suffices(run, demand);
      bool better = best < 0 || run.weight < runs_[best].weight;
      if (!better && run.weight == runs_[best].weight)
        better = (ok && !best_suffices) || (ok && run.cpus < runs_[best].cpus) ||
                 (!ok && run.cpus > runs_[best].cpus);
      if (better) {
        best = i;
        best_suffices = ok;
      }
    }
    return best;
  }

  void index() {
    std::vector<int> order(runs_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return runs_[a].weight < runs_[b].weight; });
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (i == 0 || runs_[order[i]].weight != runs_[order[i - 1]].weight)
        classes_.push_back(Class{i, i, i, i, i});
      classes_.back().end = i + 1;
    }
    by_index_ = by_cpus_ = by_nodes_ = by_gpus_ = order;
    const auto sort_down = [&](std::vector<int>& v, const Class& c, int NodeRun::*field) {
      std::stable_sort(v.begin() + static_cast<std::ptrdiff_t>(c.first),
                       v.begin() + static_cast<std::ptrdiff_t>(c.end),
                       [&](int a, int b) { return runs_[a].*field > runs_[b].*field; });
    };
    for (const Class& c : classes_) {
      sort_down(by_cpus_, c, &NodeRun::cpus);
      sort_down(by_nodes_, c, &NodeRun::nodes);
      sort_down(by_gpus_, c, &NodeRun::gpus);
    }
  }

  static constexpr int kScanRounds = 8;
  std::span<const NodeRun> runs_;
  std::vector<Class> classes_;  // ascending weight
  std::vector<int> by_index_, by_cpus_, by_nodes_, by_gpus_;
  std::size_t next_class_ = 0;  // classes before it have no live run
  int rounds_ = 0;
};

}  // namespace

std::optional<NodeOffer> offer(const ClusterState& state, int tray, const JobRequest& request,
                               SlurmVersion version) {
  return offer_of(tray, state.free_gpus_in_tray(tray), state.free_cpus_in_tray(tray),
                  state.shape().gpus_per_tray, request, version);
}

std::optional<NodeOffer> offer_of(int tray, int free_gpus, int free_cpus, int per_tray,
                                  const JobRequest& request, SlurmVersion version) {
  if (free_gpus == 0 || free_cpus == 0) return std::nullopt;
  const bool per_node = request.shape == RequestShape::nodes;
  // The fewest GPUs the node must give, and the most it may give this job.
  const int min_gpus = per_node ? per_tray : 1;
  int max_gpus = per_node ? per_tray : request.gpus;
  if (request.cpus_per_gpu > 0) max_gpus = std::min(max_gpus, free_cpus / request.cpus_per_gpu);
  if (max_gpus < min_gpus || free_gpus < min_gpus) return std::nullopt;
  const int usable =
      request.cpus_per_gpu > 0 ? std::min(free_gpus, free_cpus / request.cpus_per_gpu) : free_gpus;
  const int near = std::min(free_gpus, max_gpus);
  // 24.11's gres_filter_sock_core counts a node with a CPU share for K cores per GPU it can give.
  const int counted =
      version == SlurmVersion::v24_11 && request.cpus_per_gpu > 0 ? request.cpus_per_gpu * near : free_cpus;
  return NodeOffer{tray, counted, usable, kWeightByte - near, free_cpus, free_gpus};
}

bool may_fit(const ClusterState& state, const JobRequest& request) {
  if (state.free_gpus() < request.gpus) return false;
  if (request.shape != RequestShape::nodes) return true;
  const int per_tray = state.shape().gpus_per_tray;
  return state.idle_trays() >= request.gpus / per_tray &&
         (request.cpus_per_gpu == 0 || request.cpus_per_gpu * per_tray <= state.shape().cpus_per_tray);
}

Demand initial_demand(const ClusterState& state, const JobRequest& request) {
  Demand demand;
  const int per_cpu = request.cpus_per_gpu;
  if (request.shape == RequestShape::nodes) {
    const int nodes = request.gpus / state.shape().gpus_per_tray;
    demand.nodes = demand.max_nodes = nodes;
    demand.min_gres_cpus = per_cpu * state.shape().gpus_per_tray;
    demand.cpus = per_cpu > 0 ? demand.min_gres_cpus * nodes : nodes;
  } else {
    demand.nodes = 1;
    demand.max_nodes = state.shape().trays();
    demand.gpus_per_job = request.gpus;
    demand.cpus = per_cpu > 0 ? per_cpu * request.gpus : 1;
  }
  demand.max_cpus = demand.cpus;
  return demand;
}

void take_node(const NodeOffer& node, const JobRequest& request, Demand& demand, SlurmVersion version) {
  // _cpus_to_use: keep one CPU for each further node the job needs, never below the node's minimum, which
  // under 24.11 with a CPU share is all the node counts for (K per GPU it can give).
  int cpus = node.cpus;
  const int room = demand.max_cpus - std::max(demand.nodes - 1, 0);
  const bool floored = version == SlurmVersion::v24_11 && request.cpus_per_gpu > 0;
  if (cpus > room && !floored) cpus = std::max({room, 1, demand.min_gres_cpus});
  if (demand.gpus_per_job > 0 && cpus > 0) {
    // gres_sched_add: the node's GPUs count toward the job's total, as many as its CPUs can feed.
    int gpus = node.gpus;
    if (request.cpus_per_gpu > 0) {
      gpus = std::min(cpus / request.cpus_per_gpu, node.gpus);
      if (gpus > 0) cpus = gpus * request.cpus_per_gpu;
    }
    demand.gpus_taken += gpus;
  }
  demand.cpus -= cpus;
  demand.max_cpus -= cpus;
  --demand.nodes;
  --demand.max_nodes;
}

std::optional<std::vector<int>> eval_nodes(std::span<const NodeOffer> nodes, const JobRequest& request,
                                           Demand demand, SlurmVersion version) {
  // Kept between calls: a replay evaluates millions of placements, and these were most of its allocations.
  thread_local std::vector<NodeRun> runs;
  thread_local std::vector<int> cpus;  // avail_cpu_per_node: a round's single-node pick zeroes the rest
  thread_local std::vector<char> chosen;
  std::vector<int> taken;
  runs_of(nodes, runs);
  RunPicker picker(runs);
  cpus.resize(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) cpus[i] = nodes[i].cpus;
  chosen.assign(nodes.size(), 0);
  while (demand.max_nodes > 0) {
    const int b = picker.pick(demand);
    if (b < 0) break;
    NodeRun& run = runs[b];
    if (demand.nodes <= 1) {
      // The single node that suffices with the fewest CPUs, first on ties; one with exactly the CPUs
      // still needed ends the search.
      std::size_t single = run.end;
      for (std::size_t i = run.first; i < run.end; ++i) {
        if (chosen[i] || cpus[i] < demand.cpus) continue;
        if (demand.gpus_taken + nodes[i].gpus < demand.gpus_per_job) continue;
        if (single == run.end || cpus[i] < cpus[single]) {
          single = i;
          if (cpus[i] == demand.cpus) break;
        }
      }
      if (single != run.end) {
        for (std::size_t i = run.first; i < run.end; ++i)
          if (i != single) cpus[i] = 0;
      }
    }
    for (std::size_t i = run.first; i < run.end; ++i) {
      if (demand.max_nodes == 0 || demand.satisfied()) break;
      if (chosen[i] || cpus[i] <= 0) continue;
      if (demand.max_nodes == 1 && cpus[i] < demand.cpus) continue;
      NodeOffer node = nodes[i];
      node.cpus = cpus[i];
      take_node(node, request, demand, version);
      chosen[i] = 1;
      taken.push_back(node.tray);
    }
    if (demand.satisfied()) break;
    run.cpus = run.nodes = 0;
  }
  if (!demand.satisfied()) return std::nullopt;
  return taken;
}

std::optional<std::vector<int>> eval_offers(const ClusterState& state, const JobRequest& request,
                                            SlurmVersion version) {
  thread_local std::vector<NodeOffer> nodes;  // kept between calls, as placements are millions
  nodes.clear();
  state.for_each_tray_with_free_gpus([&](int tray) {
    if (auto node = offer(state, tray, request, version)) nodes.push_back(*node);
  });
  return eval_nodes(nodes, request, initial_demand(state, request), version);
}

std::vector<int> slurm_cores(const ClusterState& state, std::span<const int> trays,
                             std::span<const int> taken, const JobRequest& request, SlurmVersion version) {
  const int k = request.cpus_per_gpu;
  const auto gives = [&](int tray) {  // the GPUs a tray could give the job before it started
    return std::min({state.free_gpus_in_tray(tray), state.free_cpus_in_tray(tray) / k, request.gpus});
  };
  std::vector<int> cores(trays.size());
  if (version == SlurmVersion::v24_11) {
    for (std::size_t i = 0; i < trays.size(); ++i) cores[i] = k * gives(trays[i]);
    return cores;
  }
  // 22.05: each tray's bound as _cpus_to_use leaves it, in the order the trays were taken.
  std::vector<int> bound(trays.size());
  int missing = k * request.gpus;  // rem_max_cpus: K for each GPU not yet counted
  for (int tray : taken) {
    const int free = state.free_cpus_in_tray(tray);
    const int cap = free <= missing ? free : std::max(missing, 1);
    bound[std::lower_bound(trays.begin(), trays.end(), tray) - trays.begin()] = cap;
    missing -= k * std::min(state.free_gpus_in_tray(tray), std::min(free, cap) / k);
  }
  // dist_tasks: K x G tasks of one core, one per tray, then one more per tray in index order round after
  // round, up to each bound: every tray gets min(bound, L) for the level L the rounds complete, and the
  // first trays with room get one more.
  const long total = std::max<long>(static_cast<long>(k) * request.gpus, static_cast<long>(trays.size()));
  const auto placed = [&](int level) {
    long sum = 0;
    for (int b : bound) sum += std::min(b, level);
    return sum;
  };
  int low = 1, high = *std::max_element(bound.begin(), bound.end());
  while (low < high) {  // the highest level whose rounds fit in `total`
    const int mid = low + (high - low + 1) / 2;
    if (placed(mid) <= total)
      low = mid;
    else
      high = mid - 1;
  }
  long extra = total - placed(low);
  for (std::size_t i = 0; i < trays.size(); ++i) {
    cores[i] = std::min(bound[i], low);
    if (extra > 0 && bound[i] > low) {
      ++cores[i];
      --extra;
    }
  }
  return cores;
}

Allocation pick_gpus(const ClusterState& state, std::span<const int> taken, const JobRequest& request,
                     SlurmVersion version) {
  const ClusterShape& shape = state.shape();
  std::vector<int> sorted;
  std::span<const int> trays = taken;
  if (!std::is_sorted(taken.begin(), taken.end())) {
    sorted.assign(taken.begin(), taken.end());
    std::sort(sorted.begin(), sorted.end());
    trays = sorted;
  }
  // How many GPUs each node gives. First pass (_set_job_bits1): a node takes its lowest free GPUs, leaving
  // one for each later node; second pass (_set_job_bits2): any still missing come from the nodes in order,
  // again the lowest free ones not yet taken. Either way each node ends with its lowest free GPUs.
  std::vector<int> count(trays.size());
  int total = 0;
  for (std::size_t n = 0; n < trays.size(); ++n) {
    const int later = static_cast<int>(trays.size() - n - 1);
    const int want =
        request.shape == RequestShape::nodes ? shape.gpus_per_tray : request.gpus - total - later;
    count[n] = std::clamp(want, 0, state.free_gpus_in_tray(trays[n]));
    total += count[n];
  }
  for (std::size_t n = 0; n < trays.size() && total < request.gpus; ++n) {
    const int more = std::min(state.free_gpus_in_tray(trays[n]) - count[n], request.gpus - total);
    count[n] += more;
    total += more;
  }
  Allocation allocation;
  allocation.gpus.reserve(static_cast<std::size_t>(total));
  for (std::size_t n = 0; n < trays.size(); ++n) state.lowest_free_gpus(trays[n], count[n], allocation.gpus);
  if (request.shape == RequestShape::nodes || request.cpus_per_gpu == 0) {
    charge_cpus(allocation, request.cpus_per_gpu, shape);  // 1, or K for each of the tray's GPUs
    return allocation;
  }
  const std::vector<int> cores = slurm_cores(state, trays, taken, request, version);
  allocation.cpus.reserve(trays.size());
  for (std::size_t n = 0; n < trays.size(); ++n)
    if (count[n] > 0) allocation.cpus.push_back({trays[n], cores[n]});
  return allocation;
}

}  // namespace nvlsim::cons_tres
