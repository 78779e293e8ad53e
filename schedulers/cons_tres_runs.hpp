#pragma once
// select/cons_tres's choice of nodes read from the state's trays by free count, for the requests where
// eval_nodes' rounds come down to comparing runs of trays: the same answer as eval_offers, without an
// offer from every tray with a free GPU. On a machine with many partly free trays the offers were most
// of a replay's time, and grew with the machine.

#include <optional>
#include <vector>

#include "schedulers/cluster_state.hpp"
#include "schedulers/cons_tres_select.hpp"
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
// O(trays / 64 + idle runs), and a sort of the runs when one round does not suffice. Requires
// idle_runs_decide.
std::optional<std::vector<int>> eval_idle_runs(const ClusterState& state, const JobRequest& request);

// Appends to `out` the offers of every tray with a free GPU to such a request, ascending, read from the idle
// runs: every offer is an idle tray with all its GPUs and cores at one weight. The list cons_tres::offer
// gives tray by tray, in O(trays / 64 + idle trays). Requires idle_runs_decide.
void idle_offers(const ClusterState& state, const JobRequest& request, std::vector<NodeOffer>& out);

// Whether eval_one_tray may answer the request: at most a tray's GPUs anywhere (--gpus=G), without a CPU
// share or shards.
bool one_tray_may_decide(const JobRequest& request);

// The tray eval_nodes chooses for such a request when some tray with cores has the G GPUs free: those
// trays have the lowest weight and each suffices alone, so the first round takes the run of them (the
// trays next to each other, each with cores) with the fewest free cores, the first on ties, and in it the
// tray with the fewest, the first on ties. nullopt when no such tray exists (eval_offers then decides).
// O(trays / 64 + such runs + their trays with cores in use). Requires one_tray_may_decide.
std::optional<int> eval_one_tray(const ClusterState& state, const JobRequest& request);

}  // namespace nvlsim::cons_tres
