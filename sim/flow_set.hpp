#pragma once
// The SimGrid transfers in flight during a replay, and how the driver waits for them.

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/carried_bytes.hpp"
#include "sim/core/network.hpp"
#include "sim/flow_timers.hpp"

namespace nvlsim {

// SimGrid 3.32's wait_any registers the waiting actor on every activity and unregisters it from all
// of them at each completion: O(transfers) per wake-up, which made it the largest single cost of
// replays that spread jobs over racks. Instead, the network model's per-action state signal records
// each finished transfer, and the driver sleeps on a condition variable that the signal wakes.
// One FlowSet may be active per process at a time (SimGrid runs one engine per process).
class FlowSet {
 public:
  FlowSet();
  ~FlowSet();
  FlowSet(const FlowSet&) = delete;
  FlowSet& operator=(const FlowSet&) = delete;

  bool empty() const { return slot_of_.empty() && timers_.empty(); }
  void launch(simgrid::s4u::Host* from, simgrid::s4u::Host* to, std::uint64_t bytes, const Flow& flow);
  // Runs `flow` as a timer on `route` (with its summed `latency`), whose links no other transfer may cross
  // while it runs (sim/flow_timers.hpp).
  void launch_timer(const PortPair& route, double latency, const Flow& flow);
  // Sleeps until a transfer finishes or the clock reaches `until` (infinity: no time limit).
  void wait_until(double until);
  // The transfers that finished since the last call, in the order SimGrid finished them.
  std::vector<Flow> take_finished();
  // Stops the job's transfers.
  CancelledFlows cancel(std::size_t job);
  // Bytes each plane carried since the last call (by Plane), over all transfers that ran meanwhile.
  std::array<double, 2> take_carried();
  // The link's bandwidth has just been set: the rates of the transfers sharing it move.
  void bandwidth_changed(const simgrid::s4u::Link* link);

 private:
  struct Slot {
    simgrid::s4u::CommPtr comm;  // none: a timer
    Flow flow;
  };
  std::size_t new_slot();
  void finished(const void* activity);
  // Records the timers that have ended by now as finished.
  void take_ended_timers();
  // Removes slot i from its job's list.
  void forget(std::size_t i);
  // Frees slot i, whose entry in slot_of_ is already gone.
  void release(std::size_t i);

  std::vector<Slot> slots_;  // by id; a freed id is reused
  std::vector<std::size_t> free_;
  std::unordered_map<const void*, std::size_t> slot_of_;              // SimGrid activity → id
  std::unordered_map<std::size_t, std::vector<std::size_t>> of_job_;  // job → ids, in launch order
  std::vector<Flow> finished_;
  std::vector<simgrid::s4u::CommPtr> retired_;  // finished since the last take_finished
  CarriedBytes carried_;
  FlowTimers timers_;
  // wake_'s mutex, which the one actor that waits keeps once it has taken it: locking and unlocking it
  // at every wait were two of SimGrid's simcalls each time, for a mutex no one else takes.
  simgrid::s4u::MutexPtr mutex_;
  bool mutex_held_ = false;
  simgrid::s4u::ConditionVariablePtr wake_;
};

}  // namespace nvlsim
