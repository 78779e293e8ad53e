#pragma once
// The driver's queue of jobs waiting to start, in admission order.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "schedulers/easy_backfill.hpp"

namespace nvlsim {

// A scheduling pass starts jobs only near the front of a queue that can hold tens of thousands, so
// removing them must not move the rest: the queue's live part starts at an offset that grows as jobs
// leave, and the storage is compacted once the dead part outweighs the live one. It also keeps the
// total of the GPUs asked for, which the state records need at every change.
class JobQueue {
 public:
  std::span<const QueuedJob> jobs() const { return std::span(jobs_).subspan(head_); }
  std::size_t size() const { return jobs_.size() - head_; }
  bool empty() const { return size() == 0; }
  std::int64_t gpus() const { return gpus_; }

  void push_back(const QueuedJob& job);
  // Puts a requeued job back at its place; `order[j]` is job j's place in admission order.
  void insert(const QueuedJob& job, std::span<const std::size_t> order);
  // Removes the `count` queued jobs for which started(job index) holds, keeping the order of the rest.
  // A pass starts jobs near the front only, so the scan stops at the last of them.
  template <class Started>
  void remove(std::size_t count, Started started);

 private:
  void compact();

  std::vector<QueuedJob> jobs_;
  std::size_t head_ = 0;  // jobs_[0, head_) have left
  std::int64_t gpus_ = 0;
};

template <class Started>
void JobQueue::remove(std::size_t count, Started started) {
  if (count == 0) return;
  std::size_t end = head_;
  for (std::size_t found = 0; found < count && end < jobs_.size(); ++end)
    if (started(jobs_[end].job)) ++found;
  // Survivors move toward the last started job's place, so the part after it stays where it is.
  std::size_t write = end;
  for (std::size_t read = end; read-- > head_;) {
    if (started(jobs_[read].job)) {
      gpus_ -= jobs_[read].request.gpus;
      continue;
    }
    jobs_[--write] = jobs_[read];
  }
  head_ = write;
  compact();
}

}  // namespace nvlsim
