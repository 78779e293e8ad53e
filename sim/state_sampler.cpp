#include "sim/state_sampler.hpp"

#include <algorithm>
#include <map>

namespace nvlsim {

StateSampler::StateSampler(const ClusterShape& shape, const FabricParams& fabric, std::span<const Job> jobs,
                           std::span<const std::size_t> admitted)
    : shape_(shape),
      nvlink_capacity_(shape.gpus() * fabric.nvlink_gpu_bw()),
      ib_capacity_(shape.gpus() * fabric.nic_bw),
      largest_run_(shape.domains, shape.trays_per_domain),
      dirty_domain_(shape.domains, 1) {
  std::map<int, int> counts;
  for (std::size_t j : admitted) ++counts[jobs[j].gpus];
  for (auto [gpus, n] : counts) size_shares_.emplace_back(gpus, static_cast<double>(n) / admitted.size());
}

void StateSampler::touch(const Allocation& allocation) {
  for (int gpu : allocation.gpus) dirty_domain_[shape_.domain_of_gpu(gpu)] = 1;
  for (int tray : allocation.held_trays) dirty_domain_[shape_.domain_of_tray(tray)] = 1;
}

double StateSampler::fgd_fragments(const ClusterState& state) const {
  // FGD (Weng et al., ATC'23) with the NVLink domain as the node: for a job of m <= one domain, a
  // domain's free GPUs are fragments when fewer than m are free there; a larger job can only use the
  // free GPUs of the whole machine, all fragments when fewer than m. Weighted by the trace's sizes.
  double total = 0;
  for (auto [m, share] : size_shares_) {
    double fragments = 0;
    if (m <= shape_.gpus_per_domain()) {
      for (int d = 0; d < shape_.domains; ++d) {
        const int free = state.free_gpus_in_domain(d);
        if (free < m) fragments += free;
      }
    } else if (state.free_gpus() < m) {
      fragments = state.free_gpus();
    }
    total += share * fragments;
  }
  return total;
}

void StateSampler::refresh_runs(const ClusterState& state) {
  for (int d = 0; d < shape_.domains; ++d) {
    if (!dirty_domain_[d]) continue;
    dirty_domain_[d] = 0;
    int best = 0;
    int run = 0;
    const int first = shape_.first_tray_of_domain(d);
    for (int t = first; t < first + shape_.trays_per_domain; ++t) {
      run = state.tray_idle(t) ? run + 1 : 0;
      best = std::max(best, run);
    }
    largest_run_[d] = best;
  }
}

void StateSampler::record(double now, const ClusterState& state, std::span<const QueuedJob> queue,
                          int busy_gpus, bool placement_blocked, int failure_stranded_gpus, double nvlink_bytes,
                          double ib_bytes) {
  if (!samples_.empty()) {
    StateSample& last = samples_.back();
    const double span = now - last.time;
    if (span > 0) {
      last.nvlink_util = nvlink_bytes / (nvlink_capacity_ * span);
      last.ib_util = ib_bytes / (ib_capacity_ * span);
    }
  }
  refresh_runs(state);
  StateSample s;
  s.time = now;
  s.busy_gpus = busy_gpus;
  s.free_gpus = state.free_gpus();
  s.down_gpus = state.down_gpus();
  s.held_idle_gpus = shape_.gpus() - busy_gpus - s.free_gpus - s.down_gpus;
  // Idle GPUs (free, or closed by a whole-block job) are stranded while the scheduler's last pass found
  // a waiting job that fit them by count but could not be placed (DOMAIN.md §5: the free GPUs of a rack
  // held by a 32-GPU job).
  s.stranded_gpus = placement_blocked && !queue.empty() ? s.free_gpus + s.held_idle_gpus : 0;
  s.failure_stranded_gpus = failure_stranded_gpus;
  s.queued_jobs = static_cast<int>(queue.size());
  for (const auto& q : queue) s.queued_gpus += q.gpus;
  s.fgd_fragment_gpus = fgd_fragments(state);
  for (int run : largest_run_) {
    s.largest_free_run = std::max(s.largest_free_run, run);
    s.idle_domains += run == shape_.trays_per_domain;
  }
  if (!samples_.empty() && samples_.back().time == now)
    samples_.back() = std::move(s);
  else
    samples_.push_back(std::move(s));
}

}  // namespace nvlsim
