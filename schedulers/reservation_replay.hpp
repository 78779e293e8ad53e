#pragma once
// The backfill reservation: when and on what the job at the head of the queue is promised to start, found
// by replaying the running jobs' expected ends on a copy of the machine. The replayed future is kept from
// one scheduling pass to the next and moved only by what changed, because replaying it from the present
// at every pass cost more than the rest of the scheduler together.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "schedulers/allocation.hpp"
#include "schedulers/cluster_state.hpp"
#include "schedulers/placement_policy.hpp"

namespace nvlsim {

// A running job as the replay sees it: when it is expected to end and what it frees then.
struct Ending {
  double time = 0;  // expected end (start + time limit)
  std::size_t job = 0;
  const Allocation* allocation = nullptr;
};

struct Reservation {
  double start = 0;                        // the shadow time
  const Allocation* allocation = nullptr;  // the replay's own: valid while it lives, until its next reserve()
};

class ReservationReplay {
 public:
  // The earliest expected end after which `head` fits once every job ending by then (ties by job index)
  // has released its resources, and where it would go; nullopt when it fits not even on the emptied
  // machine. The start is never before `now`: a job overrunning its limit is still expected to end.
  // `now_state` must hold exactly the allocations of `endings` (in any order) and the machine's down
  // GPUs. Successive calls must see one machine evolving: the replay then updates its future by the jobs
  // that started or ended since the last call and steps from the last answer's ending to this one's,
  // usually a few places. The answer is always the one a replay from the present gives, provided the
  // policy never loses a fit, or a may_fit, when resources are released (PlacementPolicy's contract).
  std::optional<Reservation> reserve(double now, const ClusterState& now_state,
                                     std::span<const Ending> endings, const JobRequest& head,
                                     const PlacementPolicy& policy);
  // Whether `candidate` shares a GPU with the reservation the last reserve() returned, holds a tray that
  // reservation uses, or uses a tray it holds. Answered from marks per GPU and tray, set when a walk
  // places the head: a candidate costs its own size, and an unchanged reservation is not marked again.
  bool conflicts(const Allocation& candidate) const;

 private:
  struct Entry {
    double time;
    std::size_t job;
    Allocation allocation;
  };
  void rebuild(const ClusterState& now_state, std::span<const Ending> endings);
  void update(const ClusterState& now_state, std::span<const Ending> endings);
  void remember(const Ending& ending);
  std::optional<Allocation> walk(const JobRequest& head, const PlacementPolicy& policy);

  std::optional<ClusterState> future_;  // the present without the first `released_` entries
  std::vector<Entry> entries_;          // the running jobs by expected end, then job index
  std::vector<Entry> merged_;           // scratch for update()
  std::vector<Ending> fresh_;           // scratch: endings without an entry yet, in order
  // Per job index: the expected end of its entry (NaN: none), and the last call that saw it running.
  std::vector<double> entry_end_;
  std::vector<std::uint64_t> seen_;
  std::uint64_t call_ = 0;
  std::vector<std::size_t> started_;  // scratch for update(): entries that take resources in the future
  std::size_t released_ = 0;
  std::uint64_t down_changes_ = 0;  // the present's down_changes() that future_ reflects
  // The request the entries were last walked for, and what the walk found (placed on future_, or nullopt
  // when nothing fits): still the answer while future_ and its last released entry are unchanged.
  std::optional<JobRequest> walked_request_;
  const PlacementPolicy* walked_policy_ = nullptr;
  bool settled_ = false;
  bool verified_ = false;  // the head was asked on the state before the last release, and did not fit
  std::optional<Allocation> settled_placement_;
  // settled_placement_'s resources: equal to mark_ where it has a GPU, where it uses a tray (by a GPU or
  // by holding it), and where it holds one.
  void mark(const Allocation& reserved);
  std::vector<std::uint64_t> gpu_mark_, tray_mark_, held_mark_;
  std::uint64_t mark_ = 0;
};

}  // namespace nvlsim
