#include "schedulers/reservation_replay.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace nvlsim {
namespace {

template <typename A, typename B>
bool ends_before(const A& a, const B& b) {
  return std::tie(a.time, a.job) < std::tie(b.time, b.job);
}

constexpr double kNoEntry = std::numeric_limits<double>::quiet_NaN();  // equal to no expected end

}  // namespace

std::optional<Reservation> ReservationReplay::reserve(double now, const ClusterState& now_state,
                                                      std::span<const Ending> endings, const JobRequest& head,
                                                      const PlacementPolicy& policy) {
  ++call_;
  // A GPU that went down or came back since the last call may have ended jobs (a failure kills them) and
  // changes the free GPUs of every replayed state: start again from the present.
  const bool same_machine =
      future_ && future_->shape() == now_state.shape() && down_changes_ == now_state.down_changes();
  if (same_machine) {
    update(now_state, endings);
  } else {
    rebuild(now_state, endings);
  }
  if (head != walked_request_ || &policy != walked_policy_) {
    settled_ = false;
    walked_request_ = head;
    walked_policy_ = &policy;
  }
  if (!settled_) {
    settled_placement_ = walk(head, policy);
    settled_ = true;
    if (settled_placement_) mark(*settled_placement_);
  }
  if (!settled_placement_) return std::nullopt;
  return Reservation{std::max(now, entries_[released_ - 1].time), &*settled_placement_};
}

void ReservationReplay::rebuild(const ClusterState& now_state, std::span<const Ending> endings) {
  future_ = now_state;
  down_changes_ = now_state.down_changes();
  for (const Entry& e : entries_) entry_end_[e.job] = kNoEntry;
  entries_.clear();
  fresh_.assign(endings.begin(), endings.end());
  std::sort(fresh_.begin(), fresh_.end(), ends_before<Ending, Ending>);
  for (const Ending& e : fresh_) {
    entries_.push_back({e.time, e.job, *e.allocation});
    remember(e);
  }
  released_ = 0;
  settled_ = false;
}

void ReservationReplay::remember(const Ending& ending) {
  if (ending.job >= entry_end_.size()) {
    entry_end_.resize(ending.job + 1, kNoEntry);
    seen_.resize(ending.job + 1, 0);
  }
  entry_end_[ending.job] = ending.time;
}

// Merges the running jobs into the entries. A running job whose entry is there is marked seen; only the
// others (the jobs that started since) are sorted, then merged in ending order. A job that ended since
// (its entry was not seen) gives its resources back to the future unless they were already released
// there; a job that started since takes them in the future unless it ends among the released entries. The
// last released entry leaving makes the ending before it a candidate again, so the settled answer goes too;
// so does a job ending among the released entries when the state before the last release was never asked.
void ReservationReplay::update(const ClusterState& now_state, std::span<const Ending> endings) {
  fresh_.clear();
  for (const Ending& e : endings) {
    if (e.job < entry_end_.size() && entry_end_[e.job] == e.time)
      seen_[e.job] = call_;
    else
      fresh_.push_back(e);
  }
  std::sort(fresh_.begin(), fresh_.end(), ends_before<Ending, Ending>);
  merged_.clear();
  std::size_t released = 0;
  int released_gpus = 0;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < entries_.size() || j < fresh_.size()) {
    const bool in_released = i < released_;  // sorts before a released entry, or is one
    if (j == fresh_.size() || (i < entries_.size() && ends_before(entries_[i], fresh_[j]))) {
      Entry& entry = entries_[i++];
      if (seen_[entry.job] != call_) {
        entry_end_[entry.job] = kNoEntry;
        if (!in_released) {
          future_->release(entry.allocation);
          settled_ = false;
        } else if (i == released_) {
          settled_ = false;
        }
        continue;
      }
      merged_.push_back(std::move(entry));
    } else {
      if (!in_released) started_.push_back(merged_.size());
      // The state before the last release now lacks this job too: it must be asked again.
      if (in_released && !verified_) settled_ = false;
      merged_.push_back({fresh_[j].time, fresh_[j].job, *fresh_[j].allocation});
      ++j;
    }
    if (in_released) {
      ++released;
      released_gpus += static_cast<int>(merged_.back().allocation.gpus.size());
    }
  }
  std::swap(entries_, merged_);
  released_ = released;
  for (const Ending& e : fresh_) remember(e);
  // After the releases: a job that started may hold what one that ended held.
  for (std::size_t k : started_) future_->apply(entries_[k].allocation);
  if (!started_.empty()) settled_ = false;
  started_.clear();
  if (future_->allocated_gpus() + released_gpus != now_state.allocated_gpus() ||
      future_->down_gpus() != now_state.down_gpus()) {
    throw std::logic_error("ReservationReplay: the state does not hold exactly the running jobs");
  }
}

// First the ending after which may_fit starts to hold, stepping forward or back from the current one:
// may_fit is cheap and, like place(), never turns false as resources are released. Then on from there
// until place() succeeds, as may_fit is only a necessary condition. The first ending is never undone
// (the head did not fit on the present), so an answer there leaves the state before it unasked.
std::optional<Allocation> ReservationReplay::walk(const JobRequest& head, const PlacementPolicy& policy) {
  const auto may_fit = [&] { return policy.may_fit(*future_, head); };
  const auto release_next = [&] { future_->release(entries_[released_++].allocation); };
  if (released_ > 0 && may_fit()) {
    verified_ = false;
    while (released_ > 1 && !verified_) {
      const Allocation& last = entries_[released_ - 1].allocation;
      future_->apply(last);
      if (may_fit()) {
        --released_;
      } else {
        future_->release(last);
        verified_ = true;
      }
    }
  } else {
    verified_ = released_ > 0;
    do {
      if (released_ == entries_.size()) return std::nullopt;
      release_next();
    } while (!may_fit());
    verified_ = verified_ || released_ > 1;
  }
  for (;;) {
    if (std::optional<Allocation> placed = policy.place(*future_, head)) return placed;
    do {
      if (released_ == entries_.size()) return std::nullopt;
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
