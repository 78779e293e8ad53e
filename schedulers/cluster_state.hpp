#pragma once
// Which GPUs are free, busy or down, which hold shards, and which trays are held by exclusive jobs.
// This is all a policy sees of the machine; it knows nothing of SimGrid.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "models/cluster_shape.hpp"
#include "schedulers/allocation.hpp"
#include "schedulers/tray_group_index.hpp"

namespace nvlsim {

// Shards per GPU when a run sets none: what tests/slurm_oracle configures Slurm with (gres.conf Count=4 per
// GPU), a quarter of a GPU being the granularity nvlsim maps fractional requests to (docs/sharing.md).
inline constexpr int kDefaultShardsPerGpu = 4;

class ClusterState {
 public:
  // Each GPU may instead be split into `shards_per_gpu` gres/shard shards (1..255).
  explicit ClusterState(ClusterShape shape, int shards_per_gpu = kDefaultShardsPerGpu);

  const ClusterShape& shape() const { return shape_; }
  int shards_per_gpu() const { return shards_per_gpu_; }

  // A GPU is free when it is up, not allocated whole or in shards, and its tray is not held. A GPU holding
  // shards is not free for whole-GPU jobs (Slurm keeps the two apart per GPU), so every free count below
  // counts it busy.
  bool gpu_free(int gpu) const {
    return busy_[gpu] == 0 && shards_[gpu] == 0 && down_[gpu] == 0 && held_[shape_.tray_of_gpu(gpu)] == 0;
  }
  // Appends the tray's lowest `count` free GPUs to `out`, ascending; fewer if it has fewer.
  void lowest_free_gpus(int tray, int count, std::vector<int>& out) const {
    if (held_[tray] != 0) return;
    const int first = shape_.first_gpu_of_tray(tray);
    for (int gpu = first; count > 0 && gpu < first + shape_.gpus_per_tray; ++gpu) {
      if (busy_[gpu] != 0 || shards_[gpu] != 0 || down_[gpu] != 0) continue;
      out.push_back(gpu);
      --count;
    }
  }
  // Shards of the GPU allocated to jobs (0 when it is held whole or idle).
  int shards_used(int gpu) const { return shards_[gpu]; }
  // True when a shard job may take `shards` shards of the GPU: it is up, not held whole, its tray not
  // held, and it has that many shards free.
  bool gpu_has_free_shards(int gpu, int shards) const {
    return busy_[gpu] == 0 && down_[gpu] == 0 && held_[shape_.tray_of_gpu(gpu)] == 0 &&
           shards_[gpu] + shards <= shards_per_gpu_;
  }
  bool gpu_down(int gpu) const { return down_[gpu] != 0; }
  bool tray_held(int tray) const { return held_[tray] != 0; }
  // Free GPUs of a tray (0 when the tray is held).
  int free_gpus_in_tray(int tray) const { return free_in_tray_[tray]; }
  // True when the tray is not held and every GPU of it is up and unallocated.
  // A held tray counts 0 free, so only a tray with every GPU free reaches gpus_per_tray.
  bool tray_idle(int tray) const { return free_in_tray_[tray] == shape_.gpus_per_tray; }
  // CPU cores of the tray no job holds (down GPUs leave their tray's cores usable).
  int free_cpus_in_tray(int tray) const { return shape_.cpus_per_tray - cpus_used_[tray]; }
  int free_gpus_in_domain(int domain) const { return free_in_domain_[domain]; }
  // Calls visit(domain) for every domain with a down GPU, ascending. O(domains / 64 + such domains).
  template <typename Visit>
  void for_each_domain_with_down_gpus(Visit&& visit) const {
    for (std::size_t w = 0; w < down_domains_.size(); ++w)
      for (std::uint64_t word = down_domains_[w]; word != 0; word &= word - 1)
        visit(static_cast<int>(w * 64) + std::countr_zero(word));
  }
  // True when no job runs in the domain or holds a tray of it: its GPUs are all free or down.
  bool domain_without_jobs(int domain) const {
    return free_in_domain_[domain] + down_in_domain_[domain] == shape_.gpus_per_domain();
  }
  // Trays of the domain with every GPU free.
  int idle_trays_in_domain(int domain) const { return tray_counts_of_domain(domain)[shape_.gpus_per_tray]; }
  // The lowest tray with exactly `free` free GPUs (0..gpus_per_tray), or -1 when none has. O(trays / 64):
  // placement asks this at every scheduling pass, and scanning every tray dominated large machines.
  int first_tray_with_free(int free) const;
  // Calls visit(tray) for every tray with a free GPU, ascending. O(trays / 64 + such trays): placement
  // looks only at trays it could use.
  template <typename Visit>
  void for_each_tray_with_free_gpus(Visit&& visit) const {
    for_each_tray_with_at_least(1, visit);
  }
  // The same for every tray with at least `free` (1..gpus_per_tray) free GPUs.
  template <typename Visit>
  void for_each_tray_with_at_least(int free, Visit&& visit) const {
    for (std::size_t w = 0; w < words_; ++w) {
      const int base = static_cast<int>(w * 64);
      for (std::uint64_t usable = with_at_least(free, w); usable != 0; usable &= usable - 1)
        visit(base + std::countr_zero(usable));
    }
  }
  // Calls visit(first, end) for every maximal run [first, end) of trays with at least `free`
  // (1..gpus_per_tray) free GPUs and a free core each, ascending. O(trays / 64 + runs).
  template <typename Visit>
  void for_each_run_with_at_least(int free, Visit&& visit) const {
    for_each_run([&](std::size_t w) { return with_at_least(free, w) & ~coreless_[w]; }, visit);
  }
  // Calls visit(tray) for every tray of [first, end) with cores in use, ascending. O((end - first) / 64 +
  // such trays).
  template <typename Visit>
  void for_each_tray_with_cores_used(int first, int end, Visit&& visit) const {
    for (std::size_t w = static_cast<std::size_t>(first) / 64; w * 64 < static_cast<std::size_t>(end); ++w) {
      std::uint64_t used = cores_in_use_[w];
      const int base = static_cast<int>(w * 64);
      if (first > base) used &= ~((std::uint64_t{1} << (first - base)) - 1);
      if (end - base < 64) used &= (std::uint64_t{1} << (end - base)) - 1;
      for (; used != 0; used &= used - 1) visit(base + std::countr_zero(used));
    }
  }
  // For each run i, adds to by_free[i * (gpus_per_tray + 1) + k], for k = min_free..gpus_per_tray (min_free
  // >= 1), how many of its trays have exactly k free GPUs and a free core: what tree sums per leaf switch
  // instead of visiting its trays. O(gpus_per_tray x (trays in the runs / 64 + runs)).
  void count_trays_with_cores_by_free(std::span<const TrayRun> runs, int min_free,
                                      std::span<int> by_free) const;
  // How many trays of the domain have at least `free` (0..gpus_per_tray) free GPUs. O(gpus_per_tray).
  int trays_in_domain_with_at_least(int domain, int free) const {
    int count = 0;
    const int* counts = tray_counts_of_domain(domain);
    for (int k = free; k <= shape_.gpus_per_tray; ++k) count += counts[k];
    return count;
  }
  // How many domains have exactly `free` free GPUs (0..gpus_per_domain); sampling reads this histogram
  // instead of every domain.
  int domains_with_free(int free) const { return domains_by_free_[free]; }
  // The highest domain below `end` with every GPU free, or -1. O(domains / 64).
  int last_free_domain_before(int end) const {
    for (int w = (end - 1) / 64; end > 0 && w >= 0; --w) {
      std::uint64_t word = free_domains_[static_cast<std::size_t>(w)];
      if (w == (end - 1) / 64 && end % 64 != 0) word &= (std::uint64_t{1} << (end % 64)) - 1;
      if (word != 0) return w * 64 + 63 - std::countl_zero(word);
    }
    return -1;
  }
  // How many domains have exactly `idle` idle trays (0..trays_per_domain).
  int domains_with_idle_trays(int idle) const { return domains_by_idle_[idle]; }
  // The maximal runs of idle trays, in tray order (domain boundaries do not end a run). O(trays / 64 +
  // runs): read a word of trays at a time from the trays indexed by free count.
  std::vector<TrayRun> idle_tray_runs() const;
  // Idle trays on which allocations still hold CPUs. None while every allocation's CPUs are on trays of its
  // GPUs, as nvlsim's policies give them; then every idle tray has all its CPUs free.
  int idle_trays_with_cpus_used() const { return idle_trays_with_cpus_; }
  // Trays with no free core: Slurm offers them to no job, whatever their free GPUs.
  int trays_without_free_cores() const { return coreless_trays_; }
  int free_gpus() const { return free_total_; }
  // Trays with a free GPU, machine-wide.
  int trays_with_free_gpus() const { return trays_with_free_total_; }
  // Trays with every GPU free, machine-wide.
  int idle_trays() const { return idle_total_; }
  int down_gpus() const { return down_total_; }
  // GPUs a job runs on, held whole or holding shards.
  int busy_gpus() const { return busy_total_; }
  // The GPUs of every allocation applied, a GPU shared by k jobs counted k times (busy_gpus() counts it
  // once): what releasing the allocations one by one adds up to.
  int allocated_gpus() const { return allocated_total_; }
  // How many times set_down() has been called on this state and the states it was copied from: two
  // states of one evolving machine with the same count have the same down GPUs.
  std::uint64_t down_changes() const { return down_changes_; }
  // Keeps, from now on, counts per group of trays by level: a tray's free GPUs when it has a free core, else
  // 0 (what a tree leaf offers, TrayGroupIndex). Replaces any groups kept before; nullptr keeps none.
  void index_groups(TrayGroups groups);
  const TrayGroupIndex& tray_groups() const { return groups_; }

  // Marks the allocation's GPUs busy (or, for a shard allocation, its shards used), its trays held and its
  // CPUs used. The GPUs (or shards) and CPUs must be free.
  void apply(const Allocation& allocation);
  // Undoes apply(). A GPU whose last shard is released is free for whole-GPU jobs again.
  void release(const Allocation& allocation);
  // A down GPU is never free. Marking a busy GPU down leaves its job's bookkeeping to the caller.
  void set_down(int gpu, bool down);

 private:
  // The domain's trays by free count, 0..gpus_per_tray.
  const int* tray_counts_of_domain(int domain) const {
    return &trays_in_domain_by_free_[static_cast<std::size_t>(domain) * (shape_.gpus_per_tray + 1)];
  }
  int* tray_counts_of_domain(int domain) {
    return const_cast<int*>(std::as_const(*this).tray_counts_of_domain(domain));
  }
  const std::uint64_t* bucket(int free) const {
    return &trays_by_free_[static_cast<std::size_t>(free) * words_];
  }
  // Word w of the bitset of trays with at least `free` (1..gpus_per_tray) free GPUs, no bit past the
  // last tray. Every tray is in one bucket, so when the buckets below are fewer, their complement.
  std::uint64_t with_at_least(int free, std::size_t w) const {
    std::uint64_t word = 0;
    if (2 * free <= shape_.gpus_per_tray + 1) {
      for (int k = 0; k < free; ++k) word |= bucket(k)[w];
      word = ~word;
    } else {
      for (int k = free; k <= shape_.gpus_per_tray; ++k) word |= bucket(k)[w];
    }
    const int past = static_cast<int>(w * 64) + 64 - shape_.trays();
    return past > 0 ? word & (~std::uint64_t{0} >> past) : word;
  }
  // Calls visit(first, end) for every maximal run [first, end) of set bits in the trays' words, word_at(w)
  // giving word w, ascending; a run goes on across words.
  template <typename WordAt, typename Visit>
  void for_each_run(WordAt&& word_at, Visit&& visit) const {
    int open = -1;  // the first tray of a run that may go on into the next word
    for (std::size_t w = 0; w < words_; ++w) {
      std::uint64_t word = word_at(w);
      const int base = static_cast<int>(w * 64);
      if (open >= 0 && (word & 1) == 0) {
        visit(open, base);
        open = -1;
      }
      while (word != 0) {
        const int first = std::countr_zero(word);
        const int end = first + std::countr_one(word >> first);
        if (open < 0) open = base + first;
        if (end == 64) break;  // it may go on
        visit(open, base + end);
        open = -1;
        word &= ~((std::uint64_t{1} << end) - 1);
      }
    }
    if (open >= 0) visit(open, shape_.trays());
  }
  int level(int tray) const {
    return (coreless_[static_cast<std::size_t>(tray) / 64] >> (tray % 64) & 1) != 0 ? 0 : free_in_tray_[tray];
  }
  bool idle_with_cpus(int tray) const {
    return free_in_tray_[tray] == shape_.gpus_per_tray && cpus_used_[tray] > 0;
  }
  void change_cpus(int tray, int cpus);
  void recount(const Allocation& allocation);
  void recount_tray(int tray);
  void move_tray_bucket(int tray, int from, int to);
  void apply_shards(const Allocation& allocation);
  void release_shards(const Allocation& allocation);
  void check_cpus(const Allocation& allocation, bool releasing) const;
  // Counts a GPU of the tray in or out of use (whole or in shards): the tray's unavailable GPUs and the
  // busy total.
  void count_in_use(int tray, int gpu, int change);

  ClusterShape shape_;
  int shards_per_gpu_;
  std::vector<std::uint8_t> busy_;    // per GPU: held whole
  std::vector<std::uint8_t> shards_;  // per GPU: shards in use (a byte, as states are copied often)
  std::vector<std::uint8_t> down_;    // per GPU
  std::vector<int> held_;             // per tray: how many allocations hold it
  std::vector<int> cpus_used_;        // per tray
  // Per tray: GPUs held whole, holding shards or down, so a recount needs no GPU loop.
  std::vector<int> unavailable_in_tray_;
  std::vector<int> free_in_tray_;
  std::vector<int> free_in_domain_;
  std::vector<int> down_in_domain_;
  std::vector<std::uint64_t> free_domains_;  // bitset of domains with every GPU free
  std::vector<std::uint64_t> down_domains_;  // bitset of domains with a down GPU
  std::size_t words_;                        // 64-bit words per tray bitset
  // For each free count k = 0..gpus_per_tray, a bitset of the trays with k free GPUs, at words
  // [k * words_, (k + 1) * words_).
  std::vector<std::uint64_t> trays_by_free_;
  std::vector<std::uint64_t> cores_in_use_;  // bitset of trays: a job holds cores there
  std::vector<std::uint64_t> coreless_;      // bitset of trays: no free core
  std::vector<int> domains_by_free_;         // per free count: domains with that many free GPUs
  std::vector<int> domains_by_idle_;         // per idle tray count: domains with that many idle trays
  // Per domain, per free count k = 0..gpus_per_tray: the domain's trays with k free GPUs.
  std::vector<int> trays_in_domain_by_free_;
  int free_total_ = 0;
  int idle_total_ = 0;
  int trays_with_free_total_ = 0;
  int down_total_ = 0;
  int busy_total_ = 0;
  int allocated_total_ = 0;
  int idle_trays_with_cpus_ = 0;
  int coreless_trays_ = 0;
  std::uint64_t down_changes_ = 0;
  TrayGroupIndex groups_;
};

}  // namespace nvlsim
