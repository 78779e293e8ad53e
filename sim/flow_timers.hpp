#pragma once
// Transfers that share no link with any other transfer, run as timers of the time SimGrid's max-min would
// give them instead of as SimGrid flows.

#include <simgrid/s4u/Link.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>
#include <vector>

namespace nvlsim {

// A timer's route: the sender's out port and the receiver's in port, all a transfer crosses when it can
// share no link.
using PortPair = std::array<simgrid::s4u::Link*, 2>;

// A lone CM02 flow (network/model:CM02, bandwidth factor 1, no cross-traffic) on links `route` sends
// nothing until its latency (the links' latencies times network/latency-factor) is paid, then at
// min(bound, the links' bandwidths now), where `bound` is the smallest bandwidth when it started
// (NetworkCm02Model::comm_action_set_bounds: a flow started on a degraded link keeps that bound), or
// network/TCP-gamma / (2 × latency) if smaller. SimGrid re-solves it only when one of its links changes
// bandwidth, subtracting rate × elapsed from its remaining bytes, and ends it at remaining / rate after the
// last solve. The same arithmetic here gives the same end.
// Nothing else may cross the links while a timer runs: that is the caller's to guarantee. One FlowTimers
// may run per engine at a time, as it keeps its index in each link's SimGrid user data.
class FlowTimers {
 public:
  // Reads the engine's precision settings, which SimGrid applies to remaining bytes and event times.
  FlowTimers();
  // Whether the engine's settings are those the closed form above holds for (network/model:CM02 with lazy
  // updates, bandwidth factor 1, no cross-traffic) and timers are not turned off (--cfg=nvlsim/timers:0);
  // otherwise every transfer must stay a SimGrid flow.
  static bool exact_for_engine();

  // Timer `id` starts now: `bytes` on `route` (as route_to gives it), with `latency` the route's summed
  // latency.
  // Throws std::logic_error when another timer runs on one of its links.
  void start(std::size_t id, const PortPair& route, double latency, double bytes, double now);
  double rate(std::size_t id) const { return timers_[id].rate; }
  double sending_from(std::size_t id) const { return timers_[id].sending_from; }
  // The link's bandwidth changed now; calls `rate_changed(id, rate)` for the timer on it if its rate moved.
  void link_changed(const simgrid::s4u::Link* link, double now,
                    const std::function<void(std::size_t, double)>& rate_changed);
  // Stops timer `id` now; returns the bytes it had still to send.
  double stop(std::size_t id, double now);
  // When the next timer ends (infinity: none).
  double next_end();
  // Removes and returns the timers that end by `now`, earliest first (ties in start order).
  std::vector<std::size_t> take_ended(double now);
  bool empty() const { return running_ == 0; }

 private:
  struct Timer {
    PortPair route{};
    std::array<std::size_t, 2> slots{};  // of its route's links
    double bound = 0;
    double rate = 0;
    double sending_from = 0;  // when its latency is paid
    double remaining = 0;     // bytes left at `since`
    double since = 0;
    double end = 0;
    std::uint64_t serial = 0;  // 0: not running
  };
  double rate_now(const Timer& t) const;
  // The link's index into on_, made on first use.
  std::size_t slot(simgrid::s4u::Link* link);
  // The link's index, or links_.size() when it never carried a timer.
  std::size_t find_slot(const simgrid::s4u::Link* link) const;
  // Moves the timer's remaining bytes to `now` and reschedules its end at its current rate.
  void resolve(std::size_t id, double now);

  std::vector<Timer> timers_;  // by id
  // Per link that has carried a timer (at most every port: four links a GPU), the timer on it or kNone: a
  // link carries one timer at a time. A link finds its index in its SimGrid user data, which holds index +
  // 1; links_ confirms the index is this object's (hashing a link at each start and stop, and a list per
  // link, were 8% of a replay at 72,000 GPUs).
  std::vector<simgrid::s4u::Link*> links_;
  std::vector<std::size_t> on_;
  std::size_t running_ = 0;
  std::uint64_t serial_ = 0;
  using End = std::tuple<double, std::uint64_t, std::size_t>;  // time, serial, id
  std::priority_queue<End, std::vector<End>, std::greater<>> ends_;
  double remains_precision_;  // maxmin/precision × surf/precision, as Action::update_remains rounds
  double timing_precision_;   // surf/precision: events this close to now are due now
  double latency_factor_;     // network/latency-factor
  double tcp_gamma_;          // network/TCP-gamma: a flow with latency L sends at most gamma / 2L
};

}  // namespace nvlsim
