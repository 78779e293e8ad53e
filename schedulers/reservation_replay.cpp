#include "schedulers/reservation_replay.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <utility>

namespace nvlsim {
namespace {

constexpr double kNoEntry = std::numeric_limits<double>::quiet_NaN();  // equal to no expected end
// An entry that joined the released ones at its start was never released on the future: what releasing it
// frees is not known.
constexpr int kNotReleased = -1;

int gpus_of(const Allocation& allocation) {
  return static_cast<int>(allocation.gpus.size());
}

}  // namespace

bool ReservationReplay::tracks(const ClusterState& present) const {
  return future_ && future_->shape() == present.shape() && down_changes_ == present.down_changes();
}

// A job that starts among the released entries (it ends before the last of them) takes nothing in the
// future, but the state before the last release now lacks it too: that state must be asked again. One
// that starts after them takes its resources in the future, which may lose the settled answer.
void ReservationReplay::started(const ClusterState& present, std::size_t job, double expected_end,
                                const Allocation& allocation) {
  if (has_entry(job)) {
    if (entry_end_[job] == expected_end && entry_of(job)->second == allocation) return;
    ended(present, job);
  }
  if (job >= entry_end_.size()) {
    entry_end_.resize(job + 1, kNoEntry);
    freed_gpus_.resize(job + 1);
  }
  const Key key{expected_end, job};
  const auto entry = entries_.emplace(key, allocation).first;
  entry_end_[job] = expected_end;
  freed_gpus_[job] = kNotReleased;
  entry_gpus_ += gpus_of(allocation);
  if (!tracks(present)) return;
  if (in_released(key)) {
    ++released_;
    released_gpus_ += gpus_of(allocation);
    if (!verified_) settled_ = false;
  } else {
    future_->apply(entry->second);
    settled_ = false;
  }
}

// A job that ended after the released entries gives its resources back to the future. The last released
// entry leaving makes the ending before it a candidate again, so the settled answer goes too.
void ReservationReplay::ended(const ClusterState& present, std::size_t job) {
  if (!has_entry(job)) throw std::logic_error("ReservationReplay: a job ended that was not running");
  const Key key{entry_end_[job], job};
  const auto entry = entries_.find(key);
  entry_end_[job] = kNoEntry;
  entry_gpus_ -= gpus_of(entry->second);
  if (tracks(present)) {
    const bool last = released_ > 0 && key == last_released_;
    if (!last && !in_released(key)) {
      future_->release(entry->second);
      settled_ = false;
      verified_ = false;  // the state before the last release gained the job's resources too
    } else {
      --released_;
      released_gpus_ -= gpus_of(entry->second);
      if (last) {
        settled_ = false;
        verified_ = false;  // the state before the last release is now another one
        if (released_ > 0) last_released_ = std::prev(entry)->first;
      }
    }
  }
  entries_.erase(entry);
}

const Allocation& ReservationReplay::allocation(std::size_t job) const {
  if (!has_entry(job))
    throw std::logic_error("ReservationReplay: no allocation for a job that is not running");
  return entry_of(job)->second;
}

ReservationReplay::Entries::iterator ReservationReplay::first_unreleased() {
  return released_ == 0 ? entries_.begin() : std::next(entries_.find(last_released_));
}

void ReservationReplay::release_entry(Entries::iterator entry) {
  const int free_before = future_->free_gpus();
  future_->release(entry->second);
  freed_gpus_[entry->first.job] = future_->free_gpus() - free_before;
  ++released_;
  released_gpus_ += gpus_of(entry->second);
  last_released_ = entry->first;
}

void ReservationReplay::unrelease_entry(Entries::iterator entry) {
  future_->apply(entry->second);
  --released_;
  released_gpus_ -= gpus_of(entry->second);
  if (released_ > 0) last_released_ = std::prev(entry)->first;
}

std::optional<Reservation> ReservationReplay::reserve(double now, const ClusterState& now_state,
                                                      const JobRequest& head, const PlacementPolicy& policy) {
  // A GPU that went down or came back since the future was last moved changes the free GPUs of every
  // replayed state: start again from the present.
  if (!tracks(now_state)) {
    future_ = now_state;
    down_changes_ = now_state.down_changes();
    released_ = 0;
    released_gpus_ = 0;
    settled_ = false;
    verified_ = false;
  }
  if (entry_gpus_ != now_state.allocated_gpus() ||
      future_->allocated_gpus() + released_gpus_ != now_state.allocated_gpus() ||
      future_->down_gpus() != now_state.down_gpus()) {
    throw std::logic_error("ReservationReplay: the state does not hold exactly the running jobs");
  }
  // A policy that may lose a fit when resources are released (PlacementPolicy::monotone) gives no answer
  // worth carrying: every change may move the first ending that fits either way.
  if (head != walked_request_ || &policy != walked_policy_ || !policy.monotone(now_state, head)) {
    settled_ = false;
    verified_ = false;
    walked_request_ = head;
    walked_policy_ = &policy;
  }
  if (!settled_) {
    settled_placement_ = walk(head, policy);
    settled_ = true;
    if (settled_placement_) mark(*settled_placement_);
  }
  if (!settled_placement_) return std::nullopt;
  return Reservation{std::max(now, last_released_.time), &*settled_placement_};
}

// A whole-GPU job's GPUs, and the GPUs of the trays it holds, are its own, and no GPU goes down or comes
// back while the future tracks the present, so releasing it again would free as many GPUs as last time.
bool ReservationReplay::too_few_gpus_without(Entries::const_iterator released, const JobRequest& head) const {
  const int freed = freed_gpus_[released->first.job];
  return freed != kNotReleased && head.shards == 0 && released->second.shards == 0 &&
         future_->free_gpus() - freed < head.gpus;
}

// First the ending after which may_fit starts to hold, stepping forward or back from the current one:
// may_fit is cheap and, like place(), never turns false as resources are released. Then on from there
// until place() succeeds, as may_fit is only a necessary condition. The first ending is never undone
// (the head did not fit on the present), so an answer there leaves the state before it unasked.
std::optional<Allocation> ReservationReplay::walk(const JobRequest& head, const PlacementPolicy& policy) {
  const auto may_fit = [&] { return policy.may_fit(*future_, head); };
  auto next = first_unreleased();
  const auto release_next = [&] { release_entry(next++); };
  if (released_ > 0 && may_fit()) {
    while (released_ > 1 && !verified_) {
      const auto last = std::prev(next);
      if (too_few_gpus_without(last, head)) {
        verified_ = true;  // no placement takes fewer free GPUs than the job asks: no need to apply it
      } else {
        unrelease_entry(last);
        if (may_fit()) {
          next = last;
        } else {
          release_entry(last);
          verified_ = true;
        }
      }
    }
  } else {
    verified_ = released_ > 0;
    do {
      if (next == entries_.end()) return std::nullopt;
      release_next();
    } while (!may_fit());
    verified_ = verified_ || released_ > 1;
  }
  for (;;) {
    if (std::optional<Allocation> placed = policy.place(*future_, head)) return placed;
    do {
      if (next == entries_.end()) return std::nullopt;
      release_next();
    } while (!may_fit());
    verified_ = true;
  }
}

void ReservationReplay::mark(const Allocation& reserved) {
  const ClusterShape& shape = future_->shape();
  if (gpu_mark_.size() != static_cast<std::size_t>(shape.gpus()) ||
      tray_mark_.size() != static_cast<std::size_t>(shape.trays())) {
    gpu_mark_.assign(shape.gpus(), 0);
    tray_mark_.assign(shape.trays(), 0);
    held_mark_.assign(shape.trays(), 0);
  }
  ++mark_;
  shape.for_each_tray_stretch(reserved.gpus, [&](int tray, std::size_t first, std::size_t end) {
    for (std::size_t i = first; i < end; ++i) gpu_mark_[reserved.gpus[i]] = mark_;
    tray_mark_[tray] = mark_;
  });
  for (int tray : reserved.held_trays) tray_mark_[tray] = held_mark_[tray] = mark_;
}

bool ReservationReplay::conflicts(const Allocation& candidate) const {
  if (!settled_placement_) return false;
  const ClusterShape& shape = future_->shape();
  const auto gpu_conflicts = [&](int gpu) {
    return gpu_mark_[gpu] == mark_ || held_mark_[shape.tray_of_gpu(gpu)] == mark_;
  };
  return std::any_of(candidate.gpus.begin(), candidate.gpus.end(), gpu_conflicts) ||
         std::any_of(candidate.held_trays.begin(), candidate.held_trays.end(),
                     [&](int tray) { return tray_mark_[tray] == mark_; });
}

}  // namespace nvlsim
