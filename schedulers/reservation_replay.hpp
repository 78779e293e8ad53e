#pragma once
// The backfill reservation: when and on what the job at the head of the queue is promised to start, found
// by replaying the running jobs' expected ends on a copy of the machine. The replayed future is kept from
// one scheduling pass to the next and moved only by what changed, because replaying it from the present
// at every pass cost more than the rest of the scheduler together.

#include <cmath>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "schedulers/allocation.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/placement_policy.hpp"

namespace nvlsim {

struct Reservation {
  double start = 0;                        // the shadow time
  const Allocation* allocation = nullptr;  // the replay's own: valid while it lives, until its next reserve()
};

// The running jobs by expected end, told one start or end at a time, and the reservation replayed over
// them. Being told of changes, not handed the running jobs at every pass, keeps a pass's cost off the
// number of running jobs.
class ReservationReplay {
 public:
  // `job` started on `allocation` and is expected to end at `expected_end`; `present` is the machine
  // already holding it. Telling the same start again changes nothing: a backfill pass tells its starts
  // (later jobs of the pass must see them), and the caller that then starts them tells them again.
  void started(const ClusterState& present, std::size_t job, double expected_end,
               const Allocation& allocation);
  // `job`, which started, ended; `present` is the machine without it.
  void ended(const ClusterState& present, std::size_t job);
  // The allocation a started job was told with, until its end is told.
  const Allocation& allocation(std::size_t job) const;

  // The earliest expected end after which `head` fits once every job ending by then (ties by job index)
  // has released its resources, and where it would go; nullopt when it fits not even on the emptied
  // machine. The start is never before `now`: a job overrunning its limit is still expected to end.
  // `now_state` must hold exactly the allocations of the running jobs and the machine's down GPUs. The
  // replayed future moves with each start and end told, and the walk steps from the last answer's ending
  // to this one's, usually a few places; GPUs going down or up start it again from the present. The answer
  // is always the one a replay from the present gives, provided may_fit never turns false when resources are
  // released (PlacementPolicy's contract); for a request whose place() may (not monotone), the walk starts
  // afresh at each call.
  std::optional<Reservation> reserve(double now, const ClusterState& now_state, const JobRequest& head,
                                     const PlacementPolicy& policy);
  // Whether `candidate` shares a GPU with the reservation the last reserve() returned, holds a tray that
  // reservation uses, or uses a tray it holds. Answered from marks per GPU and tray, set when a walk
  // places the head: a candidate costs its own size, and an unchanged reservation is not marked again.
  bool conflicts(const Allocation& candidate) const;

 private:
  struct Key {
    double time;  // expected end
    std::size_t job;
    auto operator<=>(const Key&) const = default;  // by time, then job
  };
  using Entries = std::map<Key, Allocation>;

  bool has_entry(std::size_t job) const { return job < entry_end_.size() && !std::isnan(entry_end_[job]); }
  Entries::const_iterator entry_of(std::size_t job) const { return entries_.find({entry_end_[job], job}); }
  // Whether the future tracks the present: the same machine with the same down GPUs.
  bool tracks(const ClusterState& present) const;
  bool in_released(const Key& key) const { return released_ > 0 && key < last_released_; }
  Entries::iterator first_unreleased();
  void release_entry(Entries::iterator entry);
  void unrelease_entry(Entries::iterator entry);
  std::optional<Allocation> walk(const JobRequest& head, const PlacementPolicy& policy);
  // Whether the future with the released entry applied again has fewer free GPUs than `head` asks, told
  // without applying it; false when counts cannot tell (share jobs, an entry never released on the future).
  bool too_few_gpus_without(Entries::const_iterator released, const JobRequest& head) const;

  Entries entries_;                     // the running jobs by expected end, then job index
  std::vector<double> entry_end_;       // per job index: the expected end of its entry (NaN: none)
  std::vector<int> freed_gpus_;         // per job index: the free GPUs its entry's release added last
  int entry_gpus_ = 0;                  // the entries' GPUs, a GPU shared by k jobs counted k times
  std::optional<ClusterState> future_;  // the present without the first `released_` entries
  std::uint64_t down_changes_ = 0;      // the present's down_changes() that future_ reflects
  std::size_t released_ = 0;
  int released_gpus_ = 0;
  Key last_released_{};  // the last released entry's key, when released_ > 0
  // The request the entries were last walked for, and what the walk found (placed on future_, or nullopt
  // when nothing fits): still the answer while future_ and its last released entry are unchanged.
  std::optional<JobRequest> walked_request_;
  const PlacementPolicy* walked_policy_ = nullptr;
  bool settled_ = false;
  // The head was asked on the state before the last release and did not fit, and that state has only lost
  // resources since (a start): it still does not fit, so a walk need not step back to ask it again.
  bool verified_ = false;
  std::optional<Allocation> settled_placement_;
  // settled_placement_'s resources: equal to mark_ where it has a GPU, where it uses a tray (by a GPU or
  // by holding it), and where it holds one.
  void mark(const Allocation& reserved);
  std::vector<std::uint64_t> gpu_mark_, tray_mark_, held_mark_;
  std::uint64_t mark_ = 0;
};

}  // namespace nvlsim
