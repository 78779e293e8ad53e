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
#include <unordered_map>
#include <vector>

namespace nvlsim {

// A link a timer may run on, with the caller's number for it: the same link always has the same key and two
// links never share one (the network numbers its GPUs' ports), so that starting a timer reads and writes
// only FlowTimers' own arrays, not SimGrid's link objects spread over the platform's memory.
struct TimerLink {
  simgrid::s4u::Link* link = nullptr;
  std::size_t key = 0;
};
// A timer's route: the sender's out port and the receiver's in port, all a transfer crosses when it can
// share no link.
using PortPair = std::array<TimerLink, 2>;

// A lone CM02 flow (network/model:CM02, bandwidth factor 1, no cross-traffic) on links `route` sends
// nothing until its latency (the links' latencies times network/latency-factor) is paid, then at
// min(bound, the links' bandwidths now), where `bound` is the smallest bandwidth when it started
// (NetworkCm02Model::comm_action_set_bounds: a flow started on a degraded link keeps that bound), or
// network/TCP-gamma / (2 × latency) if smaller. SimGrid re-solves it only when one of its links changes
// bandwidth, subtracting rate × elapsed from its remaining bytes, and ends it at remaining / rate after the
// last solve. The same arithmetic here gives the same end.
// Nothing else may cross the links while a timer runs, and every change of a link's bandwidth must be told
// through link_changed (FlowTimers keeps each link's bandwidth from its first use on): both are the
// caller's to guarantee.
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
  // Throws std::logic_error when another timer runs on one of its links, or when a link comes with a key
  // another link had, or a key another than it had before.
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
    std::array<std::size_t, 2> keys{};  // of its route's links
    double bound = 0;
    double rate = 0;
    double sending_from = 0;  // when its latency is paid
    double remaining = 0;     // bytes left at `since`
    double since = 0;
    double end = 0;
    std::uint64_t serial = 0;  // 0: not running
  };
  double rate_now(const Timer& t) const;
  // Checks the link's key against those seen before, and on the key's first use records the link.
  void enter(const TimerLink& port);
  // Moves the timer's remaining bytes to `now` and reschedules its end at its current rate.
  void resolve(std::size_t id, double now);

  std::vector<Timer> timers_;  // by id
  // By key (null: the key's link has carried no timer yet), the link, its bandwidth, and the timer on it
  // or kNone: a link carries one timer at a time. Asking SimGrid's link objects at each start (their user
  // data, their bandwidth) was a cache miss each, and writing their user data a copy of a page the forked
  // replay shares with the process that loaded the platform: 5–7% of a replay at 72,000 GPUs.
  std::vector<simgrid::s4u::Link*> links_;
  std::vector<double> bandwidth_;
  std::vector<std::size_t> on_;
  // Link → key, for the keys used so far: only bandwidth changes, which are rare, look a link up.
  std::unordered_map<const simgrid::s4u::Link*, std::size_t> key_of_;
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
