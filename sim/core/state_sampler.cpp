#include "sim/core/state_sampler.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <numeric>

namespace nvlsim {

StateSampler::StateSampler(const ClusterShape& shape, const FabricParams& fabric,
                           std::span<const JobRequest> requests, std::span<const std::size_t> admitted)
    : shape_(shape),
      nvlink_capacity_(shape.gpus() * fabric.nvlink_gpu_bw()),
      ib_capacity_(shape.gpus() * fabric.nic_bw),
      largest_run_(shape.domains, shape.trays_per_domain),
      domains_by_run_(shape.trays_per_domain + 1, 0),
      dirty_domain_(shape.domains, 1),
      dirty_list_(shape.domains) {
  std::iota(dirty_list_.begin(), dirty_list_.end(), 0);
  domains_by_run_[shape.trays_per_domain] = shape.domains;
  // A record at each start, each end and each backfill wake-up: 2.8 a job on the built-in mix at load 0.9.
  // Growing the vector copied it and faulted its pages in again at every doubling; reserved pages that
  // are never written cost no memory, so the room is generous.
  samples_.reserve(4 * admitted.size() + 1);
  std::map<int, int> counts, share_counts;
  for (std::size_t j : admitted) {
    const JobRequest& r = requests[j];
    ++(r.shards > 0 ? share_counts[r.shards] : counts[r.gpus]);
  }
  const auto share_of = [&](int n) { return static_cast<double>(n) / admitted.size(); };
  for (auto [gpus, n] : counts) size_shares_.emplace_back(gpus, share_of(n));
  for (auto [shares, n] : share_counts) share_shares_.emplace_back(shares, share_of(n));
  if (!share_shares_.empty()) {
    shared_free_.assign(shape.gpus(), 0);
    gpus_by_shared_free_.assign(256, 0);
    dirty_gpu_.assign(shape.gpus(), 0);
  }
}

void StateSampler::touch(const Allocation& allocation) {
  shape_.for_each_tray_stretch(allocation.gpus, [&](int tray, std::size_t first, std::size_t end) {
    mark_dirty(shape_.domain_of_tray(tray));
    for (std::size_t i = first; i < end; ++i) mark_gpu_dirty(allocation.gpus[i]);
  });
  for (int tray : allocation.held_trays) {
    mark_dirty(shape_.domain_of_tray(tray));
    const int first = tray * shape_.gpus_per_tray;
    for (int gpu = first; gpu < first + shape_.gpus_per_tray; ++gpu) mark_gpu_dirty(gpu);
  }
}

void StateSampler::mark_gpu_dirty(int gpu) {
  if (shared_free_.empty() || dirty_gpu_[gpu]) return;
  dirty_gpu_[gpu] = 1;
  dirty_gpus_.push_back(gpu);
}

void StateSampler::refresh_shared(const ClusterState& state) {
  for (int gpu : dirty_gpus_) {
    dirty_gpu_[gpu] = 0;
    const int used = state.shards_used(gpu);
    const int free = used > 0 && state.gpu_has_free_shards(gpu, 0) ? state.shards_per_gpu() - used : 0;
    --gpus_by_shared_free_[shared_free_[gpu]];
    ++gpus_by_shared_free_[free];
    shared_free_[gpu] = static_cast<std::uint8_t>(free);
  }
  dirty_gpus_.clear();
}

double StateSampler::shared_free_gpus(const ClusterState& state) const {
  long shares = 0;
  for (std::size_t free = 1; free < gpus_by_shared_free_.size(); ++free)
    shares += static_cast<long>(free) * gpus_by_shared_free_[free];
  return static_cast<double>(shares) / state.shards_per_gpu();
}

void StateSampler::mark_dirty(int domain) {
  if (dirty_domain_[domain]) return;
  dirty_domain_[domain] = 1;
  dirty_list_.push_back(domain);
}

double StateSampler::fgd_fragments(const ClusterState& state, double shared_free) const {
  // FGD (Weng et al., ATC'23; pkg/utils/frag.go of their simulator) with the NVLink domain as the node:
  // for a job of m <= one domain whole GPUs, a domain's free GPUs are fragments when fewer than m are free
  // there; a larger job can only use the free GPUs of the whole machine, all fragments when fewer than m.
  // The free shares of partly held GPUs are fragments for every whole-GPU job (it takes only GPUs with
  // nothing on them). For a job asking k shares of a GPU, the free shares of GPUs with fewer than k free
  // are fragments, wherever they are. Weighted by the trace's request types.
  // The free GPUs of domains with fewer than m free come from the state's histogram of domains by free
  // count, summed once over all sizes (ascending): the cost does not grow with sizes x domains.
  double total = 0;
  long below = 0;  // free GPUs of the domains with fewer than `next` free
  int next = 0;
  for (auto [m, share] : size_shares_) {
    double fragments = shared_free;
    if (m <= shape_.gpus_per_domain()) {
      for (; next < m; ++next) below += static_cast<long>(next) * state.domains_with_free(next);
      fragments += static_cast<double>(below);
    } else if (state.free_gpus() < m) {
      fragments += state.free_gpus();
    }
    total += share * fragments;
  }
  long shares_below = 0;  // free shares of the partly held GPUs with fewer than `free` free
  std::size_t free = 1;
  for (auto [k, share] : share_shares_) {
    for (; free < static_cast<std::size_t>(k); ++free)
      shares_below += static_cast<long>(free) * gpus_by_shared_free_[free];
    total += share * static_cast<double>(shares_below) / state.shards_per_gpu();
  }
  return total;
}

void StateSampler::refresh_runs(const ClusterState& state) {
  for (int d : dirty_list_) {
    dirty_domain_[d] = 0;
    int best = 0;
    int run = 0;
    const int first = shape_.first_tray_of_domain(d);
    for (int t = first; t < first + shape_.trays_per_domain; ++t) {
      run = state.tray_idle(t) ? run + 1 : 0;
      best = std::max(best, run);
    }
    --domains_by_run_[largest_run_[d]];
    ++domains_by_run_[best];
    largest_run_[d] = best;
  }
  dirty_list_.clear();
}

void StateSampler::record(double now, const ClusterState& state, int queued_jobs, std::int64_t queued_gpus,
                          int busy_gpus, bool placement_blocked, int failure_stranded_gpus,
                          double nvlink_bytes, double ib_bytes) {
  if (!samples_.empty()) {
    StateSample& last = samples_.back();
    const double span = now - last.time;
    if (span > 0) {
      last.nvlink_util = nvlink_bytes / (nvlink_capacity_ * span);
      last.ib_util = ib_bytes / (ib_capacity_ * span);
    }
  }
  refresh_runs(state);
  refresh_shared(state);
  StateSample s;
  s.time = now;
  s.busy_gpus = busy_gpus;
  s.free_gpus = state.free_gpus();
  s.down_gpus = state.down_gpus();
  s.held_idle_gpus = shape_.gpus() - busy_gpus - s.free_gpus - s.down_gpus;
  s.shared_free_gpus = shared_free_.empty() ? 0 : shared_free_gpus(state);
  // Idle capacity (free GPUs, GPUs closed by a whole-block job, free shares) is stranded while the
  // scheduler's last pass found a waiting job that fit it by count but could not be placed (DOMAIN.md §5:
  // the free GPUs of a rack held by a 32-GPU job).
  s.stranded_gpus =
      placement_blocked && queued_jobs > 0 ? s.free_gpus + s.held_idle_gpus + s.shared_free_gpus : 0;
  s.failure_stranded_gpus = failure_stranded_gpus;
  s.queued_jobs = queued_jobs;
  s.queued_gpus = queued_gpus;
  s.fgd_fragment_gpus = fgd_fragments(state, s.shared_free_gpus);
  int run = shape_.trays_per_domain;
  while (run > 0 && domains_by_run_[run] == 0) --run;
  s.largest_free_run = run;
  s.idle_domains = domains_by_run_[shape_.trays_per_domain];
  if (!samples_.empty() && samples_.back().time == now)
    samples_.back() = std::move(s);
  else
    samples_.push_back(std::move(s));
}

}  // namespace nvlsim
