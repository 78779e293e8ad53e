#include "schedulers/tray_group_index.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <utility>

namespace nvlsim {

TrayGroupIndex::TrayGroupIndex(TrayGroups groups, int trays, int per_tray, std::span<const int> level)
    : groups_(std::move(groups)), per_tray_(per_tray), group_of_(static_cast<std::size_t>(trays), -1) {
  if (groups_ == nullptr) throw std::invalid_argument("TrayGroupIndex: no groups");
  const std::vector<TrayRun>& runs = *groups_;
  int end = 0;
  for (std::size_t g = 0; g < runs.size(); ++g) {
    const TrayRun run = runs[g];
    if (run.first_tray < end || run.end_tray <= run.first_tray || run.end_tray > trays)
      throw std::invalid_argument(
          "TrayGroupIndex: groups must be ascending, disjoint and inside the machine");
    end = run.end_tray;
    largest_ = std::max(largest_, run.end_tray - run.first_tray);
    std::fill(group_of_.begin() + run.first_tray, group_of_.begin() + run.end_tray, static_cast<int>(g));
  }
  group_words_ = (runs.size() + 63) / 64;
  counts_.assign(runs.size() * static_cast<std::size_t>(per_tray), 0);
  totals_.assign(static_cast<std::size_t>(per_tray), 0);
  with_count_.assign(static_cast<std::size_t>(per_tray) * largest_ * group_words_, 0);
  with_count_size_.assign(static_cast<std::size_t>(per_tray) * largest_, 0);
  for (int tray = 0; tray < trays; ++tray) move(tray, 0, level[static_cast<std::size_t>(tray)]);
}

int TrayGroupIndex::tightest(int at_least, int fewest) const {
  if (empty()) return -1;
  for (int c = std::max(fewest, 1); c <= largest_; ++c) {
    const std::size_t b = bucket(at_least, c);
    if (with_count_size_[b] == 0) continue;
    const std::uint64_t* bits = &with_count_[b * group_words_];
    for (std::size_t w = 0;; ++w)
      if (bits[w] != 0) return static_cast<int>(w * 64) + std::countr_zero(bits[w]);
  }
  return -1;
}

void TrayGroupIndex::shift(int tray, int from, int to) {
  const int g = group_of_[static_cast<std::size_t>(tray)];
  if (g < 0) return;
  for (int k = from + 1; k <= to; ++k) change(g, k, 1);
  for (int k = to + 1; k <= from; ++k) change(g, k, -1);
}

void TrayGroupIndex::change(int g, int at_least, int delta) {
  int& count = counts_[static_cast<std::size_t>(g) * per_tray_ + at_least - 1];
  const std::uint64_t bit = std::uint64_t{1} << (g % 64);
  const std::size_t word = static_cast<std::size_t>(g) / 64;
  if (count > 0) {
    with_count_[bucket(at_least, count) * group_words_ + word] &= ~bit;
    --with_count_size_[bucket(at_least, count)];
  }
  count += delta;
  if (count > 0) {
    with_count_[bucket(at_least, count) * group_words_ + word] |= bit;
    ++with_count_size_[bucket(at_least, count)];
  }
  totals_[static_cast<std::size_t>(at_least) - 1] += delta;
}

}  // namespace nvlsim
