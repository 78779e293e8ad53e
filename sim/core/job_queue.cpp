#include "sim/core/job_queue.hpp"

#include <algorithm>

namespace nvlsim {

void JobQueue::push_back(const QueuedJob& job) {
  jobs_.push_back(job);
  gpus_ += job.request.gpus;
}

void JobQueue::insert(const QueuedJob& job, std::span<const std::size_t> order) {
  const auto at =
      std::upper_bound(jobs_.begin() + static_cast<std::ptrdiff_t>(head_), jobs_.end(), order[job.job],
                       [order](std::size_t place, const QueuedJob& q) { return place < order[q.job]; });
  jobs_.insert(at, job);
  gpus_ += job.request.gpus;
}

void JobQueue::remove(std::span<const std::size_t> started) {
  if (started.empty()) return;
  std::vector<std::size_t> sorted(started.begin(), started.end());
  std::sort(sorted.begin(), sorted.end());
  const auto is_started = [&sorted](std::size_t job) {
    return std::binary_search(sorted.begin(), sorted.end(), job);
  };
  std::size_t end = head_;
  for (std::size_t found = 0; found < sorted.size() && end < jobs_.size(); ++end)
    if (is_started(jobs_[end].job)) ++found;
  // Survivors move toward the furthest started job's place, so the part after it stays where it is.
  std::size_t write = end;
  for (std::size_t read = end; read-- > head_;) {
    if (is_started(jobs_[read].job)) {
      gpus_ -= jobs_[read].request.gpus;
      continue;
    }
    jobs_[--write] = jobs_[read];
  }
  head_ = write;
  compact();
}

void JobQueue::compact() {
  if (head_ == jobs_.size()) {
    jobs_.clear();
    head_ = 0;
  }
  if (head_ < 4096 || head_ < jobs_.size() / 2) return;
  jobs_.erase(jobs_.begin(), jobs_.begin() + static_cast<std::ptrdiff_t>(head_));
  head_ = 0;
}

}  // namespace nvlsim
