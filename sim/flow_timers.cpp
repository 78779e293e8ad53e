#include "sim/flow_timers.hpp"

#include <xbt/config.hpp>

#include <algorithm>
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
  for (std::size_t k = 0; k < route.size(); ++k) {
    enter(route[k]);
    t.keys[k] = route[k].key;
  }
  for (const std::size_t key : t.keys)
    if (on_[key] != kNone)
      throw std::logic_error("nvlsim: two timers at once on link " + links_[key]->get_name());
  t.bound = kNever;
  for (const std::size_t key : t.keys) t.bound = std::min(t.bound, bandwidth_[key]);
  if (latency > 0 && tcp_gamma_ > 0) t.bound = std::min(t.bound, tcp_gamma_ / (2 * latency));
  t.sending_from = now + latency * latency_factor_;
  t.remaining = bytes;
  t.since = t.sending_from;
  t.serial = ++serial_;
  for (const std::size_t key : t.keys) on_[key] = id;
  ++running_;
  t.rate = rate_now(t);
  t.end = t.rate > 0 ? t.sending_from + t.remaining / t.rate : kNever;
  ends_.emplace(t.end, t.serial, id);
}

void FlowTimers::link_changed(const simgrid::s4u::Link* link, double now,
                              const std::function<void(std::size_t, double)>& rate_changed) {
  const auto it = key_of_.find(link);
  if (it == key_of_.end()) return;  // read at its first use
  const std::size_t key = it->second;
  bandwidth_[key] = link->get_bandwidth();
  if (on_[key] == kNone) return;
  const std::size_t id = on_[key];
  const double before = timers_[id].rate;
  resolve(id, now);
  if (timers_[id].rate != before) rate_changed(id, timers_[id].rate);
}

double FlowTimers::stop(std::size_t id, double now) {
  Timer& t = timers_[id];
  double remaining = t.remaining;
  if (now > t.since) remaining -= t.rate * (now - t.since);
  if (remaining < remains_precision_) remaining = 0;
  for (const std::size_t key : t.keys) on_[key] = kNone;
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

void FlowTimers::enter(const TimerLink& port) {
  if (port.key >= links_.size()) {
    links_.resize(port.key + 1, nullptr);
    bandwidth_.resize(port.key + 1, 0);
    on_.resize(port.key + 1, kNone);
  }
  if (links_[port.key] == port.link) return;
  if (links_[port.key] != nullptr || !key_of_.emplace(port.link, port.key).second)
    throw std::logic_error("nvlsim: link " + port.link->get_name() + " given key " +
                           std::to_string(port.key) + ", which is another link's or not its own");
  links_[port.key] = port.link;
  bandwidth_[port.key] = port.link->get_bandwidth();
}

double FlowTimers::rate_now(const Timer& t) const {
  double rate = t.bound;
  for (const std::size_t key : t.keys) rate = std::min(rate, bandwidth_[key]);
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
