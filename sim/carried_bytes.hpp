#pragma once
// The bytes each plane carried, integrated from the transfers' rates as SimGrid changes them, so that a
// state sample costs O(1) instead of asking SimGrid for every transfer's remaining bytes.

#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/s4u/Host.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>
#include <vector>

#include "sim/core/network.hpp"
#include "sim/link_sharing.hpp"

namespace nvlsim {

// A transfer's rate changes only when SimGrid re-solves its sharing component: at the instant a transfer
// of the component starts, ends or pays its latency, or a link's bandwidth changes. Each of those marks the
// component (LinkSharing); the marked transfers' new rates are read once the instant's solve is done, at
// the next call at a later time. In between, each plane's bytes grow by its summed rate times the time.
// A transfer that ends is credited what it really carried (its size less what SimGrid says remains), so
// each transfer's total is exact and only the split between samples rests on the rates.
class CarriedBytes {
 public:
  // Reads the engine's settings that shape a transfer's constraints and latency.
  CarriedBytes();

  // Transfer `id` started now from `from` to `to`; `action` is SimGrid's, whose rate it reads.
  void start(std::size_t id, const simgrid::kernel::resource::Action* action, const simgrid::s4u::Host* from,
             const simgrid::s4u::Host* to, const Flow& flow, double now);
  // Transfer `id` started now as a timer (sim/flow_timers.hpp): no SimGrid action, `rate` bytes/s from
  // `sending_from` on.
  void start_timer(std::size_t id, const Flow& flow, double sending_from, double rate, double now);
  // Timer transfer `id` sends at `rate` from now on (from the end of its latency if still to come).
  void timer_rate(std::size_t id, double rate, double now);
  // Transfer `id` ended now with `remaining` bytes not sent (0: it finished).
  void end(std::size_t id, double remaining, double now);
  // The link's bandwidth changed now.
  void link_changed(const simgrid::s4u::Link* link, double now);

  // When the next transfer still in its latency starts sending (infinity: none). The caller must make a
  // call at that time: SimGrid re-solves the transfer's component then, and nothing else reports it.
  double next_activation();
  // Brings the counts up to `now`.
  void advance(double now);

  // Bytes each plane carried since the last call (by Plane).
  std::array<double, 2> take(double now);

 private:
  struct Transfer {
    const simgrid::kernel::resource::Action* action = nullptr;  // none: a timer
    int plane = 0;
    double multiplicity = 1;
    double size = 0;
    double rate = 0;      // bytes/s from `since` on, as last read
    double since = 0;     // when `rate` was read
    double credited = 0;  // bytes counted up to `since`
    std::uint64_t serial = 0;
    double timer_rate = 0;  // a timer's rate once its latency is paid
    bool sending = false;   // a timer past its latency
  };
  void add_rate(const Transfer& t, double sign);
  // The transfer sends at `rate` from synced_ on.
  void set_rate(Transfer& t, double rate);

  std::vector<Transfer> transfers_;  // by id
  LinkSharing sharing_;
  // Summed rates (bytes/s, times multiplicity) by plane; long double so that millions of additions and
  // removals leave no visible residue.
  std::array<long double, 2> rate_{0, 0};
  std::array<std::size_t, 2> sending_{0, 0};  // transfers with a positive rate, by plane: none means 0
  std::array<double, 2> carried_{0, 0};
  double synced_ = 0;  // the time carried_ counts up to, and when the marks were made
  std::uint64_t serial_ = 0;
  using Activation = std::tuple<double, std::uint64_t, std::size_t>;  // time, serial, id
  std::priority_queue<Activation, std::vector<Activation>, std::greater<>> activations_;
  std::vector<simgrid::s4u::Link*> route_;  // scratch
  bool crosstraffic_;                       // SimGrid loads the reverse route too (network/crosstraffic)
  double latency_factor_;                   // network/latency-factor
};

}  // namespace nvlsim
