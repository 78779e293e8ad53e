#include "schedulers/cluster_state.hpp"

#include <bit>
#include <stdexcept>
#include <string>
#include <utility>

// popcount is one instruction on every x86-64 CPU of the last fifteen years, but not in the baseline the
// compiler targets, where it is a library call (12% of a large tree replay). A clone per CPU keeps the
// binary portable. (Clang takes the attribute only on a function not yet called in the file.)
#if defined(__x86_64__)
#define NVLSIM_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define NVLSIM_POPCNT_CLONES
#endif

namespace nvlsim {

ClusterState::ClusterState(ClusterShape shape, int shards_per_gpu)
    : shape_(shape),
      shards_per_gpu_(shards_per_gpu),
      busy_(shape.gpus(), 0),
      shards_(shape.gpus(), 0),
      down_(shape.gpus(), 0),
      held_(shape.trays(), 0),
      cpus_used_(shape.trays(), 0),
      unavailable_in_tray_(shape.trays(), 0),
      free_in_tray_(shape.trays(), shape.gpus_per_tray),
      free_in_domain_(shape.domains, shape.gpus_per_domain()),
      down_in_domain_(shape.domains, 0),
      free_domains_((static_cast<std::size_t>(shape.domains) + 63) / 64, 0),
      down_domains_((static_cast<std::size_t>(shape.domains) + 63) / 64, 0),
      words_((static_cast<std::size_t>(shape.trays()) + 63) / 64),
      trays_by_free_(words_ * (shape.gpus_per_tray + 1), 0),
      cores_in_use_(words_, 0),
      coreless_(words_, 0),
      domains_by_free_(shape.gpus_per_domain() + 1, 0),
      domains_by_idle_(shape.trays_per_domain + 1, 0),
      trays_in_domain_by_free_(static_cast<std::size_t>(shape.domains) * (shape.gpus_per_tray + 1), 0),
      free_total_(shape.gpus()),
      idle_total_(shape.trays()),
      trays_with_free_total_(shape.trays()) {
  if (shards_per_gpu < 1 || shards_per_gpu > 255)
    throw std::invalid_argument("ClusterState: shards per GPU must be 1..255");
  for (int tray = 0; tray < shape.trays(); ++tray) {
    trays_by_free_[shape.gpus_per_tray * words_ + tray / 64] |= std::uint64_t{1} << (tray % 64);
    if (shape.cpus_per_tray == 0) coreless_[tray / 64] |= std::uint64_t{1} << (tray % 64);
  }
  if (shape.cpus_per_tray == 0) coreless_trays_ = shape.trays();
  domains_by_free_[shape.gpus_per_domain()] = shape.domains;
  for (int d = 0; d < shape.domains; ++d) free_domains_[d / 64] |= std::uint64_t{1} << (d % 64);
  domains_by_idle_[shape.trays_per_domain] = shape.domains;
  for (int d = 0; d < shape.domains; ++d)
    tray_counts_of_domain(d)[shape.gpus_per_tray] = shape.trays_per_domain;
}

int ClusterState::first_tray_with_free(int free) const {
  const std::uint64_t* bucket = trays_by_free_.data() + static_cast<std::size_t>(free) * words_;
  for (std::size_t w = 0; w < words_; ++w) {
    if (bucket[w] != 0) return static_cast<int>(w * 64) + std::countr_zero(bucket[w]);
  }
  return -1;
}

NVLSIM_POPCNT_CLONES void ClusterState::count_trays_with_cores_by_free(std::span<const TrayRun> runs,
                                                                       int min_free,
                                                                       std::span<int> by_free) const {
  const std::size_t stride = static_cast<std::size_t>(shape_.gpus_per_tray) + 1;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const int first = runs[i].first_tray;
    const int end = runs[i].end_tray;
    int* counts = &by_free[i * stride];
    for (std::size_t w = static_cast<std::size_t>(first) / 64; w * 64 < static_cast<std::size_t>(end); ++w) {
      const int base = static_cast<int>(w * 64);
      std::uint64_t in_range = ~coreless_[w];
      if (first > base) in_range &= ~((std::uint64_t{1} << (first - base)) - 1);
      if (end - base < 64) in_range &= (std::uint64_t{1} << (end - base)) - 1;
      for (int k = min_free; k <= shape_.gpus_per_tray; ++k)
        counts[k] += std::popcount(bucket(k)[w] & in_range);
    }
  }
}

void ClusterState::index_groups(TrayGroups groups) {
  if (groups == nullptr) {
    groups_ = {};
    return;
  }
  std::vector<int> levels(static_cast<std::size_t>(shape_.trays()));
  for (int tray = 0; tray < shape_.trays(); ++tray) levels[static_cast<std::size_t>(tray)] = level(tray);
  groups_ = TrayGroupIndex(std::move(groups), shape_.trays(), shape_.gpus_per_tray, levels);
}

std::vector<TrayRun> ClusterState::idle_tray_runs() const {
  std::vector<TrayRun> runs;
  for_each_run([&](std::size_t w) { return with_at_least(shape_.gpus_per_tray, w); },
               [&](int first, int end) {
                 runs.push_back({first, end});
               });
  return runs;
}

void ClusterState::apply(const Allocation& allocation) {
  for (int tray : allocation.held_trays) {
    if (tray < 0 || tray >= shape_.trays()) {
      throw std::logic_error("ClusterState::apply: tray " + std::to_string(tray) + " does not exist");
    }
  }
  check_cpus(allocation, false);
  if (allocation.shards > 0) {
    apply_shards(allocation);
  } else {
    const auto& gpus = allocation.gpus;
    // Mark as we check, so a GPU listed twice is caught; undo the marks before throwing.
    std::size_t marked = 0;
    shape_.for_each_tray_stretch(gpus, [&](int tray, std::size_t first, std::size_t end) {
      for (std::size_t i = first; i < end; ++i) {
        const int gpu = gpus[i];
        if (tray < 0 || held_[tray] != 0 || busy_[gpu] != 0 || shards_[gpu] != 0 || down_[gpu] != 0) {
          for (std::size_t j = 0; j < marked; ++j) busy_[gpus[j]] = 0;
          throw std::logic_error("ClusterState::apply: GPU " + std::to_string(gpu) + " is not free");
        }
        busy_[gpu] = 1;
        ++marked;
      }
    });
    shape_.for_each_tray_stretch(gpus, [&](int tray, std::size_t first, std::size_t end) {
      for (std::size_t i = first; i < end; ++i) count_in_use(tray, gpus[i], 1);
    });
  }
  allocated_total_ += static_cast<int>(allocation.gpus.size());
  for (int tray : allocation.held_trays) ++held_[tray];
  for (const TrayCpus& c : allocation.cpus) change_cpus(c.tray, c.cpus);
  recount(allocation);
}

void ClusterState::release(const Allocation& allocation) {
  for (int tray : allocation.held_trays) {
    if (tray < 0 || tray >= shape_.trays() || held_[tray] == 0) {
      throw std::logic_error("ClusterState::release: tray " + std::to_string(tray) + " is not held");
    }
  }
  check_cpus(allocation, true);
  if (allocation.shards > 0) {
    release_shards(allocation);
  } else {
    const auto& gpus = allocation.gpus;
    std::size_t cleared = 0;
    shape_.for_each_tray_stretch(gpus, [&](int tray, std::size_t first, std::size_t end) {
      for (std::size_t i = first; i < end; ++i) {
        const int gpu = gpus[i];
        if (tray < 0 || busy_[gpu] == 0) {
          for (std::size_t j = 0; j < cleared; ++j) busy_[gpus[j]] = 1;
          throw std::logic_error("ClusterState::release: GPU " + std::to_string(gpu) + " is not allocated");
        }
        busy_[gpu] = 0;
        ++cleared;
      }
    });
    shape_.for_each_tray_stretch(gpus, [&](int tray, std::size_t first, std::size_t end) {
      for (std::size_t i = first; i < end; ++i) count_in_use(tray, gpus[i], -1);
    });
  }
  allocated_total_ -= static_cast<int>(allocation.gpus.size());
  for (int tray : allocation.held_trays) --held_[tray];
  for (const TrayCpus& c : allocation.cpus) change_cpus(c.tray, -c.cpus);
  recount(allocation);
}

void ClusterState::set_down(int gpu, bool down) {
  const int change = (down ? 1 : 0) - down_[gpu];
  down_total_ += change;
  const int domain = shape_.domain_of_gpu(gpu);
  down_in_domain_[domain] += change;
  const std::uint64_t bit = std::uint64_t{1} << (domain % 64);
  std::uint64_t& word = down_domains_[static_cast<std::size_t>(domain) / 64];
  word = down_in_domain_[domain] > 0 ? word | bit : word & ~bit;
  ++down_changes_;
  down_[gpu] = down ? 1 : 0;
  if (busy_[gpu] == 0 && shards_[gpu] == 0) unavailable_in_tray_[shape_.tray_of_gpu(gpu)] += change;
  recount_tray(shape_.tray_of_gpu(gpu));
}

void ClusterState::check_cpus(const Allocation& allocation, bool releasing) const {
  for (const TrayCpus& c : allocation.cpus) {
    const bool tray_ok = c.tray >= 0 && c.tray < shape_.trays() && c.cpus >= 0;
    if (!releasing && !(tray_ok && c.cpus <= free_cpus_in_tray(c.tray))) {
      throw std::logic_error("ClusterState::apply: tray " + std::to_string(c.tray) + " has not " +
                             std::to_string(c.cpus) + " free CPUs");
    }
    if (releasing && !(tray_ok && c.cpus <= cpus_used_[c.tray])) {
      throw std::logic_error("ClusterState::release: tray " + std::to_string(c.tray) + " has not " +
                             std::to_string(c.cpus) + " CPUs in use");
    }
  }
}

// A GPU goes into use with its first shard and out of use with its last, so whole-GPU counters see a GPU
// holding shards as busy. The GPUs must be strictly ascending: a GPU listed twice would be counted twice.
void ClusterState::apply_shards(const Allocation& allocation) {
  const auto& gpus = allocation.gpus;
  const int k = allocation.shards;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const int gpu = gpus[i];
    if (gpu < 0 || gpu >= shape_.gpus() || (i > 0 && gpu <= gpus[i - 1]) || !gpu_has_free_shards(gpu, k)) {
      for (std::size_t j = 0; j < i; ++j) shards_[gpus[j]] = static_cast<std::uint8_t>(shards_[gpus[j]] - k);
      throw std::logic_error("ClusterState::apply: GPU " + std::to_string(gpu) + " has not " +
                             std::to_string(k) + " free shards");
    }
    shards_[gpu] = static_cast<std::uint8_t>(shards_[gpu] + k);
  }
  shape_.for_each_tray_stretch(gpus, [&](int tray, std::size_t first, std::size_t end) {
    for (std::size_t i = first; i < end; ++i)
      if (shards_[gpus[i]] == k) count_in_use(tray, gpus[i], 1);
  });
}

void ClusterState::release_shards(const Allocation& allocation) {
  const auto& gpus = allocation.gpus;
  const int k = allocation.shards;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const int gpu = gpus[i];
    if (gpu < 0 || gpu >= shape_.gpus() || (i > 0 && gpu <= gpus[i - 1]) || shards_[gpu] < k) {
      for (std::size_t j = 0; j < i; ++j) shards_[gpus[j]] = static_cast<std::uint8_t>(shards_[gpus[j]] + k);
      throw std::logic_error("ClusterState::release: GPU " + std::to_string(gpu) + " has not " +
                             std::to_string(k) + " shards allocated");
    }
    shards_[gpu] = static_cast<std::uint8_t>(shards_[gpu] - k);
  }
  shape_.for_each_tray_stretch(gpus, [&](int tray, std::size_t first, std::size_t end) {
    for (std::size_t i = first; i < end; ++i)
      if (shards_[gpus[i]] == 0) count_in_use(tray, gpus[i], -1);
  });
}

// An up GPU going into use leaves the tray's free GPUs; a down one is unavailable either way.
void ClusterState::count_in_use(int tray, int gpu, int change) {
  if (down_[gpu] == 0) unavailable_in_tray_[tray] += change;
  busy_total_ += change;
}

// The trays of the GPUs, each once when the GPUs are ascending, and the held trays. Backfill reservations
// release every running job on a copy at each pass, so counting a 4-GPU tray once instead of four times
// matters.
void ClusterState::recount(const Allocation& allocation) {
  shape_.for_each_tray_stretch(allocation.gpus,
                               [&](int tray, std::size_t, std::size_t) { recount_tray(tray); });
  for (int tray : allocation.held_trays) recount_tray(tray);
}

// Recomputes one tray's free GPUs and moves the domain and total counters by the difference, which
// keeps every counter exact however many times a tray is recounted.
void ClusterState::recount_tray(int tray) {
  const int free = held_[tray] == 0 ? shape_.gpus_per_tray - unavailable_in_tray_[tray] : 0;
  const int delta = free - free_in_tray_[tray];
  if (delta == 0) return;
  move_tray_bucket(tray, free_in_tray_[tray], free);
  const int domain = shape_.domain_of_tray(tray);
  int* by_free = tray_counts_of_domain(domain);
  const int idle_delta = (free == shape_.gpus_per_tray) - (free_in_tray_[tray] == shape_.gpus_per_tray);
  --domains_by_idle_[by_free[shape_.gpus_per_tray]];
  ++domains_by_idle_[by_free[shape_.gpus_per_tray] + idle_delta];
  --by_free[free_in_tray_[tray]];
  ++by_free[free];
  idle_total_ += idle_delta;
  const bool had_cpus_idle = idle_with_cpus(tray);
  const int level_was = level(tray);
  free_in_tray_[tray] = free;
  groups_.move(tray, level_was, level(tray));
  idle_trays_with_cpus_ += int{idle_with_cpus(tray)} - int{had_cpus_idle};
  int& domain_free = free_in_domain_[domain];
  --domains_by_free_[domain_free];
  domain_free += delta;
  ++domains_by_free_[domain_free];
  const std::uint64_t bit = std::uint64_t{1} << (domain % 64);
  std::uint64_t& word = free_domains_[static_cast<std::size_t>(domain) / 64];
  word = domain_free == shape_.gpus_per_domain() ? word | bit : word & ~bit;
  free_total_ += delta;
  trays_with_free_total_ += int{free > 0} - int{free - delta > 0};
}

void ClusterState::change_cpus(int tray, int cpus) {
  const bool had = idle_with_cpus(tray);
  const int level_was = level(tray);
  cpus_used_[tray] += cpus;
  idle_trays_with_cpus_ += int{idle_with_cpus(tray)} - int{had};
  const std::size_t word = static_cast<std::size_t>(tray) / 64;
  const std::uint64_t bit = std::uint64_t{1} << (tray % 64);
  cores_in_use_[word] = cpus_used_[tray] > 0 ? cores_in_use_[word] | bit : cores_in_use_[word] & ~bit;
  const bool was_coreless = (coreless_[word] & bit) != 0;
  coreless_[word] = free_cpus_in_tray(tray) == 0 ? coreless_[word] | bit : coreless_[word] & ~bit;
  coreless_trays_ += int{(coreless_[word] & bit) != 0} - int{was_coreless};
  groups_.move(tray, level_was, level(tray));
}

void ClusterState::move_tray_bucket(int tray, int from, int to) {
  const std::size_t word = static_cast<std::size_t>(tray) / 64;
  const std::uint64_t bit = std::uint64_t{1} << (tray % 64);
  trays_by_free_[static_cast<std::size_t>(from) * words_ + word] &= ~bit;
  trays_by_free_[static_cast<std::size_t>(to) * words_ + word] |= bit;
}

}  // namespace nvlsim
