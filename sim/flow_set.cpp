#include "sim/flow_set.hpp"

#include <simgrid/version.h>
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

// The reinterpret_cast below relies on SimGrid 3.32's class layout, which nothing installed declares.
#if SIMGRID_VERSION_MAJOR != 3 || SIMGRID_VERSION_MINOR != 32 || SIMGRID_VERSION_PATCH != 0
#error "nvlsim needs SimGrid 3.32.0: sim/flow_set.cpp casts its NetworkAction by that version's layout"
#endif

#include <limits>
#include <mutex>
#include <stdexcept>

namespace nvlsim {

namespace {

namespace s4u = simgrid::s4u;
using simgrid::kernel::resource::Action;

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

void FlowSet::launch(s4u::Host* from, s4u::Host* to, std::uint64_t bytes, const Flow& flow) {
  s4u::CommPtr comm = s4u::Comm::sendto_async(from, to, bytes);
  slot_of_.emplace(comm->get_impl(), slots_.size());
  slots_.push_back({std::move(comm), flow, static_cast<double>(bytes)});
}

// Runs in SimGrid's maestro while it updates the network model; the driver runs once maestro is done,
// so every transfer finishing at this instant is recorded before it wakes.
void FlowSet::finished(const void* activity) {
  const auto it = slot_of_.find(activity);
  if (it == slot_of_.end()) return;  // not ours, or cancelled meanwhile
  const std::size_t i = it->second;
  slot_of_.erase(it);
  credit(slots_[i], 0);
  finished_.push_back(slots_[i].flow);
  // The comm may not be released here: SimGrid is still finishing it.
  retired_.push_back(std::move(slots_[i].comm));
  remove(i);
  wake_->notify_one();
}

void FlowSet::wait_until(double until) {
  if (!finished_.empty()) return;
  std::unique_lock lock(*mutex_);
  if (until == std::numeric_limits<double>::infinity())
    wake_->wait(lock);
  else
    wake_->wait_until(lock, until);
}

std::vector<Flow> FlowSet::take_finished() {
  retired_.clear();
  std::vector<Flow> done;
  done.swap(finished_);
  return done;
}

CancelledFlows FlowSet::cancel(std::size_t job) {
  CancelledFlows out;
  for (std::size_t i = slots_.size(); i-- > 0;) {
    Slot& s = slots_[i];
    if (s.flow.job != job) continue;
    const double remaining = s.comm->get_remaining();
    out.sent_share += 1.0 - remaining / s.flow.size;
    ++out.flows;
    credit(s, remaining);
    slot_of_.erase(s.comm->get_impl());
    s.comm->cancel();
    remove(i);
  }
  return out;
}

std::array<double, 2> FlowSet::take_carried() {
  for (Slot& s : slots_) credit(s, s.comm->get_remaining());
  const std::array<double, 2> carried = carried_;
  carried_ = {0, 0};
  return carried;
}

void FlowSet::credit(Slot& slot, double remaining) {
  carried_[static_cast<int>(slot.flow.plane)] += (slot.last_remaining - remaining) * slot.flow.multiplicity;
  slot.last_remaining = remaining;
}

// Forgets slot i, whose entry in slot_of_ is already gone, by moving the last slot into its place.
void FlowSet::remove(std::size_t i) {
  if (i + 1 != slots_.size()) {
    slots_[i] = std::move(slots_.back());
    slot_of_[slots_[i].comm->get_impl()] = i;
  }
  slots_.pop_back();
}

}  // namespace nvlsim
