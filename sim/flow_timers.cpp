#include "sim/flow_timers.hpp"

#include <xbt/config.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace nvlsim {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// Off, every transfer is a SimGrid flow: slower, with the same results, which tests check this way.
simgrid::config::Flag<bool> cfg_timers{
    "nvlsim/timers",
    "Run transfers that share no link with another as exact timers instead "
    "of SimGrid flows (nvlsim, docs/model.md)",
    true};

}  // namespace

FlowTimers::FlowTimers()
    : remains_precision_(simgrid::config::get_value<double>("maxmin/precision") *
                         simgrid::config::get_value<double>("surf/precision")),
      timing_precision_(simgrid::config::get_value<double>("surf/precision")),
      latency_factor_(simgrid::config::get_value<double>("network/latency-factor")),
      tcp_gamma_(simgrid::config::get_value<double>("network/TCP-gamma")) {}

bool FlowTimers::exact_for_engine() {
  namespace config = simgrid::config;
  return cfg_timers && config::get_value<std::string>("network/model") == "CM02" &&
         config::get_value<std::string>("network/optim") == "Lazy" &&
         config::get_value<double>("network/bandwidth-factor") == 1.0 &&
         !config::get_value<bool>("network/crosstraffic");
}

void FlowTimers::start(std::size_t id, const PortPair& route, double latency, double bytes, double now) {
  if (id >= timers_.size()) timers_.resize(id + 1);
  Timer& t = timers_[id];
  t.route = route;
  t.bound = kNever;
  for (const auto* link : route) t.bound = std::min(t.bound, link->get_bandwidth());
  if (latency > 0 && tcp_gamma_ > 0) t.bound = std::min(t.bound, tcp_gamma_ / (2 * latency));
  t.sending_from = now + latency * latency_factor_;
  t.remaining = bytes;
  t.since = t.sending_from;
  t.serial = ++serial_;
  for (std::size_t k = 0; k < route.size(); ++k) {
    t.slots[k] = slot(route[k]);
    if (on_[t.slots[k]] != kNone)
      throw std::logic_error("nvlsim: two timers at once on link " + route[k]->get_name());
  }
  for (const std::size_t s : t.slots) on_[s] = id;
  ++running_;
  t.rate = rate_now(t);
  t.end = t.rate > 0 ? t.sending_from + t.remaining / t.rate : kNever;
  ends_.emplace(t.end, t.serial, id);
}

void FlowTimers::link_changed(const simgrid::s4u::Link* link, double now,
                              const std::function<void(std::size_t, double)>& rate_changed) {
  const std::size_t s = find_slot(link);
  if (s == links_.size() || on_[s] == kNone) return;
  const std::size_t id = on_[s];
  const double before = timers_[id].rate;
  resolve(id, now);
  if (timers_[id].rate != before) rate_changed(id, timers_[id].rate);
}

double FlowTimers::stop(std::size_t id, double now) {
  Timer& t = timers_[id];
  double remaining = t.remaining;
  if (now > t.since) remaining -= t.rate * (now - t.since);
  if (remaining < remains_precision_) remaining = 0;
  for (const std::size_t s : t.slots) on_[s] = kNone;
  t.serial = 0;
  --running_;
  return remaining;
}

double FlowTimers::next_end() {
  while (!ends_.empty()) {
    const auto& [time, serial, id] = ends_.top();
    if (timers_[id].serial == serial && timers_[id].end == time) return time;
    ends_.pop();  // stopped, or rescheduled
  }
  return kNever;
}

// SimGrid ends an action whose date is within surf/precision of the clock (update_actions_state_lazy).
std::vector<std::size_t> FlowTimers::take_ended(double now) {
  std::vector<std::size_t> ended;
  while (next_end() <= now + timing_precision_) {
    const std::size_t id = std::get<2>(ends_.top());
    ends_.pop();
    stop(id, now);
    ended.push_back(id);
  }
  return ended;
}

std::size_t FlowTimers::slot(simgrid::s4u::Link* link) {
  if (const std::size_t s = find_slot(link); s < links_.size()) return s;
  links_.push_back(link);
  on_.push_back(kNone);
  link->set_data(reinterpret_cast<void*>(static_cast<std::uintptr_t>(links_.size())));
  return links_.size() - 1;
}

std::size_t FlowTimers::find_slot(const simgrid::s4u::Link* link) const {
  const auto stored = reinterpret_cast<std::uintptr_t>(link->get_data<void>());
  if (stored == 0 || stored > links_.size() || links_[stored - 1] != link) return links_.size();
  return stored - 1;
}

double FlowTimers::rate_now(const Timer& t) const {
  double rate = t.bound;
  for (const auto* link : t.route) rate = std::min(rate, link->get_bandwidth());
  return rate;
}

// As NetworkCm02Action::update_remains_lazy then the lazy solve: remaining bytes fall by the old rate times
// the time since the last solve (nothing during the latency), rounded to zero below the precision, and the
// end moves to remaining / new rate after now (or after the latency).
void FlowTimers::resolve(std::size_t id, double now) {
  Timer& t = timers_[id];
  if (now > t.since) {
    t.remaining -= t.rate * (now - t.since);
    if (t.remaining < remains_precision_) t.remaining = 0;
    t.since = now;
  }
  t.rate = rate_now(t);
  const double from = std::max(now, t.sending_from);
  if (t.remaining <= 0)
    t.end = from;
  else
    t.end = t.rate > 0 ? from + t.remaining / t.rate : kNever;
  ends_.emplace(t.end, t.serial, id);
}

}  // namespace nvlsim
