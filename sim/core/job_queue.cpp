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
