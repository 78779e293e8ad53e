#pragma once
// select/cons_tres's choice of nodes for a whole-tray request, read from the runs of idle trays instead of
// an offer from every tray with a free GPU: the same answer as cons_tres::eval_nodes, in O(trays / 64 +
// idle runs) instead of O(trays with a free GPU). On a machine with many partly free trays the offers were
// most of a replay's time, and grew with the machine.

#include <optional>
#include <vector>

#include "schedulers/cluster_state.hpp"
#include "schedulers/job_request.hpp"

namespace nvlsim::cons_tres {

// Whether eval_idle_runs answers the request: a whole-tray request without a CPU share (one CPU per
// node), on trays with cores, when every idle tray has all its cores free. Then the trays offered are the
// idle ones, all of one weight and one CPU count: eval_nodes' runs are the runs of idle trays, and its
// rounds compare them by length alone.
bool idle_runs_decide(const ClusterState& state, const JobRequest& request);

// eval_nodes' rounds over the idle runs: the shortest run holding the trays still needed (the first on
// ties) gives its first trays and ends the search; while none holds them, the longest (the first on ties)
// gives all of its own. The chosen trays ascending, or nullopt when the idle trays are too few.
// Requires idle_runs_decide.
std::optional<std::vector<int>> eval_idle_runs(const ClusterState& state, const JobRequest& request);

}  // namespace nvlsim::cons_tres
