#include "sim/carried_bytes.hpp"

#include <xbt/config.hpp>

#include <limits>

namespace nvlsim {

CarriedBytes::CarriedBytes()
    : crosstraffic_(simgrid::config::get_value<bool>("network/crosstraffic")),
      latency_factor_(simgrid::config::get_value<double>("network/latency-factor")) {}

void CarriedBytes::start(std::size_t id, const simgrid::kernel::resource::Action* action,
                         const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, const Flow& flow,
                         double now) {
  advance(now);
  if (id >= transfers_.size()) transfers_.resize(id + 1);
  transfers_[id] = {
      action,   static_cast<int>(flow.plane), static_cast<double>(flow.multiplicity), flow.size, 0, now, 0,
      ++serial_};
  // The links and latency SimGrid gave the transfer: it asks the same questions when the transfer starts
  // (NetworkCm02Model::communicate), with the latency factor of the CM02 models.
  route_.clear();
  double latency = 0;
  from->route_to(to, route_, &latency);
  if (crosstraffic_) to->route_to(from, route_, nullptr);
  sharing_.add(id, route_);
  sharing_.mark_flow(id);
  // Until its latency is paid a transfer has no rate; then SimGrid enables it, with no event of ours.
  latency *= latency_factor_;
  if (latency > 0) activations_.emplace(latency + now, serial_, id);
}

// A timer shares no link, so nothing else moves its rate: it is known at once, no solve to wait for.
void CarriedBytes::start_timer(std::size_t id, const Flow& flow, double sending_from, double rate,
                               double now) {
  advance(now);
  if (id >= transfers_.size()) transfers_.resize(id + 1);
  Transfer& t = transfers_[id];
  t = {nullptr,  static_cast<int>(flow.plane), static_cast<double>(flow.multiplicity), flow.size, 0, now, 0,
       ++serial_};
  t.timer_rate = rate;
  if (sending_from > now)
    activations_.emplace(sending_from, serial_, id);
  else
    t.sending = true;
  if (t.sending) set_rate(t, rate);
}

void CarriedBytes::timer_rate(std::size_t id, double rate, double now) {
  advance(now);
  Transfer& t = transfers_[id];
  t.timer_rate = rate;
  if (t.sending) set_rate(t, rate);
}

void CarriedBytes::end(std::size_t id, double remaining, double now) {
  advance(now);
  Transfer& t = transfers_[id];
  const double counted = t.credited + t.rate * (now - t.since);
  carried_[t.plane] += t.multiplicity * (t.size - remaining - counted);
  add_rate(t, -1);
  t.serial = 0;
  if (t.action != nullptr) sharing_.remove(id);
}

void CarriedBytes::link_changed(const simgrid::s4u::Link* link, double now) {
  advance(now);
  sharing_.mark_link(link);
}

double CarriedBytes::next_activation() {
  while (!activations_.empty()) {
    const auto& [time, serial, id] = activations_.top();
    if (transfers_[id].serial == serial) return time;
    activations_.pop();  // the transfer ended first
  }
  return std::numeric_limits<double>::infinity();
}

std::array<double, 2> CarriedBytes::take(double now) {
  advance(now);
  const std::array<double, 2> carried = carried_;
  carried_ = {0, 0};
  return carried;
}

// The marks were all made at synced_, and SimGrid solved them before its clock moved on: a later `now`
// reads the rates they run at from synced_ on. At synced_ itself the solve may still be to come.
void CarriedBytes::advance(double now) {
  if (now > synced_) {
    for (const std::size_t id : sharing_.marked()) {
      Transfer& t = transfers_[id];
      set_rate(t, t.action->get_rate());
    }
    sharing_.clear_marks();
    for (int p = 0; p < 2; ++p) carried_[p] += static_cast<double>(rate_[p] * (now - synced_));
    synced_ = now;
  }
  while (next_activation() <= now) {
    Transfer& t = transfers_[std::get<2>(activations_.top())];
    if (t.action == nullptr) {
      t.sending = true;
      set_rate(t, t.timer_rate);
    } else {
      sharing_.mark_flow(std::get<2>(activations_.top()));
    }
    activations_.pop();
  }
}

void CarriedBytes::set_rate(Transfer& t, double rate) {
  add_rate(t, -1);
  t.credited += t.rate * (synced_ - t.since);
  t.since = synced_;
  t.rate = rate;
  add_rate(t, 1);
}

void CarriedBytes::add_rate(const Transfer& t, double sign) {
  if (t.rate <= 0) return;
  rate_[t.plane] += static_cast<long double>(sign * t.multiplicity * t.rate);
  if (sign > 0)
    ++sending_[t.plane];
  else
    --sending_[t.plane];
  if (sending_[t.plane] == 0) rate_[t.plane] = 0;
}

}  // namespace nvlsim
