#pragma once
// Counts kept per group of consecutive trays (a policy's leaf switches, say), updated as trays change, so
// that "the group with the fewest trays that still has n with k free GPUs" costs no pass over the groups.
// ClusterState keeps one when a policy asks for it (PlacementPolicy::tray_groups).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace nvlsim {

// Consecutive trays.
struct TrayRun {
  int first_tray = 0;
  int end_tray = 0;  // one past the last
  bool operator==(const TrayRun&) const = default;
};

// Groups of trays, ascending and disjoint; shared, so that a policy knows a state's groups are its own by
// identity.
using TrayGroups = std::shared_ptr<const std::vector<TrayRun>>;

class TrayGroupIndex {
 public:
  // No groups: every query is empty.
  TrayGroupIndex() = default;
  // `level` gives each tray's level (0..per_tray) now: its free GPUs when it has a free core, else 0.
  // Throws std::invalid_argument when the groups overlap, are not ascending, or leave [0, trays).
  TrayGroupIndex(TrayGroups groups, int trays, int per_tray, std::span<const int> level);

  bool empty() const { return groups_ == nullptr; }
  const TrayGroups& groups() const { return groups_; }
  int per_tray() const { return per_tray_; }
  // Trays of group g at level `at_least` (1..per_tray) or above.
  int count(int g, int at_least) const {
    return counts_[static_cast<std::size_t>(g) * per_tray_ + at_least - 1];
  }
  // The same over every group.
  int total(int at_least) const { return totals_[static_cast<std::size_t>(at_least) - 1]; }
  // Of the groups whose count(g, at_least) is `fewest` (>= 1) or more, the lowest of those with the smallest
  // such count; -1 when none. O(largest group + groups / 64).
  int tightest(int at_least, int fewest) const;
  // A tray's level changed (ClusterState calls this at every change of a tray, so the test is inline).
  // O(levels changed).
  void move(int tray, int from, int to) {
    if (from != to && groups_ != nullptr) shift(tray, from, to);
  }

 private:
  // The bucket of the groups with `count` (1..largest) trays at level `at_least` or above.
  std::size_t bucket(int at_least, int count) const {
    return static_cast<std::size_t>(at_least - 1) * largest_ + static_cast<std::size_t>(count - 1);
  }
  void shift(int tray, int from, int to);
  void change(int g, int at_least, int delta);

  TrayGroups groups_;
  int per_tray_ = 0;
  int largest_ = 0;              // trays of the largest group
  std::size_t group_words_ = 0;  // 64-bit words per bitset of groups
  std::vector<int> group_of_;    // per tray: its group, or -1
  std::vector<int> counts_;      // per group, per level 1..per_tray
  std::vector<int> totals_;      // per level
  // Per level and count c = 1..largest: a bitset of the groups with that count, and how many they are.
  std::vector<std::uint64_t> with_count_;
  std::vector<int> with_count_size_;
};

}  // namespace nvlsim
