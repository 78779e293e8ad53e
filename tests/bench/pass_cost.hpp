#pragma once
// nvlsim-placement-bench --pass: the cost of one scheduling pass (easy_backfill, as the simulator's
// Scheduler runs it when a backfill pass is due) against the machine's size and the queue's length.

#include <string>
#include <vector>

namespace nvlsim {

struct PassCost {
  int racks = 0;
  std::string policy;
  int queue = 0;          // jobs queued at the pass
  int passes = 0;         // timed passes: one per machine, the fastest of its repeats
  double free = 0;        // mean share of the GPUs free at the pass (a held tray's are not)
  double started = 0;     // mean jobs a pass started
  double carried_ns = 0;  // per pass, with the reservation's future carried from the pass before
  double fresh_ns = 0;    // per pass, with the reservation replayed from the present
};

// For each queue length, a pass on each of `machines` seeded machines (seeds 1, 2, ...), each timed
// `repeats` times; the figures are means over the machines.
std::vector<PassCost> measure_passes(int racks, const std::string& policy, const std::vector<int>& queues,
                                     int machines, int repeats);

}  // namespace nvlsim
