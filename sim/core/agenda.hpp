#pragma once
// The driver's timetable between SimGrid wake-ups: job, backfill and failure events in time order.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

namespace nvlsim {

// Events this close to the clock are due: the clock moves by sums of durations, which round.
inline constexpr double kTimeSlack = 1e-9;

enum class EventKind { compute_done, time_limit, backfill, work_start, failure, repair };

struct Event {
  double time;
  std::uint64_t seq;      // ties resolve in scheduling order, so runs are reproducible
  std::size_t index;      // the job, or for failures and repairs the failure
  std::uint32_t attempt;  // job events belong to one attempt; later ones ignore them
  EventKind kind;
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

class Agenda {
 public:
  void push(double time, std::size_t index, EventKind kind, std::uint32_t attempt = 0) {
    events_.push({time, seq_++, index, attempt, kind});
  }
  // The earliest event's time; infinity when there is none.
  double next_time() const {
    return events_.empty() ? std::numeric_limits<double>::infinity() : events_.top().time;
  }
  // Removes and returns the earliest event. The agenda must not be empty.
  Event pop() {
    const Event e = events_.top();
    events_.pop();
    return e;
  }

 private:
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
};

}  // namespace nvlsim
