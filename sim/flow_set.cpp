#include "sim/flow_set.hpp"

#include <simgrid/version.h>
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

// The reinterpret_casts below rely on SimGrid 3.32's class layout, which nothing installed declares.
#if SIMGRID_VERSION_MAJOR != 3 || SIMGRID_VERSION_MINOR != 32 || SIMGRID_VERSION_PATCH != 0
#error "nvlsim needs SimGrid 3.32.0: sim/flow_set.cpp casts its NetworkAction by that version's layout"
#endif

#include <algorithm>
#include <limits>
#include <mutex>
#include <stdexcept>

namespace nvlsim {

namespace {

namespace s4u = simgrid::s4u;
using simgrid::kernel::resource::Action;
using simgrid::kernel::resource::Model;

FlowSet* active_set = nullptr;

// SimGrid's signal can be connected but not disconnected, so it is connected once per process and
// forwards to the active set.
void connect_once(void (*forward)(const void*)) {
  static const bool connected = [forward] {
    s4u::Link::on_communication_state_change_cb(
        [forward](simgrid::kernel::resource::NetworkAction& network_action, Action::State) {
          // SimGrid 3.32 installs no definition of NetworkAction, only its base: it derives from Action
          // alone (src/kernel/resource/NetworkModel.hpp), so the two share an address.
          const auto& action = reinterpret_cast<const Action&>(network_action);
          if (action.get_state() == Action::State::FINISHED) forward(action.get_activity());
        });
    return true;
  }();
  (void)connected;
}

// The SimGrid action that Comm::start has just created for `comm`: the newest of its network model's
// started actions (Action's constructor appends it there). s4u offers no way from a comm to its action.
const Action* started_action(const s4u::Comm& comm, const s4u::Host* from) {
  // SimGrid 3.32 installs no definition of NetworkModel either: it derives from Model first
  // (src/kernel/resource/NetworkModel.hpp), so the two share an address. CommImpl::start picks the model
  // the same way.
  auto* model =
      reinterpret_cast<Model*>(from->get_netpoint()->get_englobing_zone()->get_network_model().get());
  const Action& action = model->get_started_action_set()->back();
  if (static_cast<const void*>(action.get_activity()) != static_cast<const void*>(comm.get_impl()))
    throw std::logic_error("nvlsim: the newest network action is not the transfer just started");
  return &action;
}

}  // namespace

FlowSet::FlowSet() : mutex_(s4u::Mutex::create()), wake_(s4u::ConditionVariable::create()) {
  if (active_set != nullptr) throw std::logic_error("nvlsim: two flow sets active at once");
  active_set = this;
  connect_once([](const void* activity) {
    if (active_set != nullptr) active_set->finished(activity);
  });
}

FlowSet::~FlowSet() {
  active_set = nullptr;
}

std::size_t FlowSet::new_slot() {
  if (free_.empty()) {
    slots_.emplace_back();
    return slots_.size() - 1;
  }
  const std::size_t id = free_.back();
  free_.pop_back();
  return id;
}

void FlowSet::launch(s4u::Host* from, s4u::Host* to, std::uint64_t bytes, const Flow& flow) {
  s4u::CommPtr comm = s4u::Comm::sendto_async(from, to, bytes);
  const std::size_t id = new_slot();
  carried_.start(id, started_action(*comm, from), from, to, flow, s4u::Engine::get_clock());
  slot_of_.emplace(comm->get_impl(), id);
  of_job_[flow.job].push_back(id);
  slots_[id] = {std::move(comm), flow};
}

void FlowSet::launch_timer(const PortPair& route, double latency, const Flow& flow) {
  const std::size_t id = new_slot();
  const double now = s4u::Engine::get_clock();
  timers_.start(id, route, latency, flow.size, now);
  carried_.start_timer(id, flow, timers_.sending_from(id), timers_.rate(id), now);
  of_job_[flow.job].push_back(id);
  slots_[id] = {nullptr, flow};
}

// Runs in SimGrid's maestro while it updates the network model; the driver runs once maestro is done,
// so every transfer finishing at this instant is recorded before it wakes.
void FlowSet::finished(const void* activity) {
  const auto it = slot_of_.find(activity);
  if (it == slot_of_.end()) return;  // not ours, or cancelled meanwhile
  const std::size_t id = it->second;
  slot_of_.erase(it);
  carried_.end(id, 0, s4u::Engine::get_clock());
  finished_.push_back(slots_[id].flow);
  // The comm may not be released here: SimGrid is still finishing it.
  retired_.push_back(std::move(slots_[id].comm));
  forget(id);
  release(id);
  wake_->notify_one();
}

// After SimGrid's transfers of the same instant, which maestro recorded before the driver woke.
void FlowSet::take_ended_timers() {
  const double now = s4u::Engine::get_clock();
  for (const std::size_t id : timers_.take_ended(now)) {
    carried_.end(id, 0, now);
    finished_.push_back(slots_[id].flow);
    forget(id);
    release(id);
  }
}

void FlowSet::forget(std::size_t id) {
  std::vector<std::size_t>& of_job = of_job_[slots_[id].flow.job];
  of_job.erase(std::find(of_job.begin(), of_job.end(), id));
  if (of_job.empty()) of_job_.erase(slots_[id].flow.job);
}

// Also wakes when a transfer's latency ends, which SimGrid reports to no one, so that the carried bytes
// see the rates it moves at that instant, and when a timer ends.
void FlowSet::wait_until(double until) {
  if (!mutex_held_) mutex_->lock();
  mutex_held_ = true;
  std::unique_lock lock(*mutex_, std::adopt_lock);
  struct Keep {  // leaves the mutex locked on every way out; the waits give it back while they wait
    std::unique_lock<s4u::Mutex>& lock;
    ~Keep() { lock.release(); }
  } keep{lock};
  take_ended_timers();
  while (finished_.empty()) {
    const double wake = std::min({until, carried_.next_activation(), timers_.next_end()});
    if (wake == std::numeric_limits<double>::infinity())
      wake_->wait(lock);
    else if (slot_of_.empty())  // no transfer of SimGrid's can end first: a sleep is one simcall, not two
      s4u::this_actor::sleep_until(wake);
    else
      wake_->wait_until(lock, wake);
    carried_.advance(s4u::Engine::get_clock());
    take_ended_timers();
    if (wake == until) return;
  }
}

std::vector<Flow> FlowSet::take_finished() {
  retired_.clear();
  std::vector<Flow> done;
  done.swap(finished_);
  return done;
}

CancelledFlows FlowSet::cancel(std::size_t job) {
  CancelledFlows out;
  const auto it = of_job_.find(job);
  if (it == of_job_.end()) return out;
  const std::vector<std::size_t> ids = std::move(it->second);
  of_job_.erase(it);
  const double now = s4u::Engine::get_clock();
  for (const std::size_t id : ids) {
    Slot& s = slots_[id];
    const double remaining = s.comm ? s.comm->get_remaining() : timers_.stop(id, now);
    out.sent_share += 1.0 - remaining / s.flow.size;
    ++out.flows;
    carried_.end(id, remaining, now);
    if (s.comm) {
      slot_of_.erase(s.comm->get_impl());
      s.comm->cancel();
    }
    release(id);
  }
  return out;
}

std::array<double, 2> FlowSet::take_carried() {
  return carried_.take(s4u::Engine::get_clock());
}

void FlowSet::bandwidth_changed(const s4u::Link* link) {
  const double now = s4u::Engine::get_clock();
  carried_.link_changed(link, now);
  timers_.link_changed(link, now,
                       [this, now](std::size_t id, double rate) { carried_.timer_rate(id, rate, now); });
}

void FlowSet::release(std::size_t id) {
  slots_[id].comm = nullptr;
  free_.push_back(id);
}

}  // namespace nvlsim
