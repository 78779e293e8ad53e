// Compiles: the replay core, the records and the layers below sim/ that the core uses (the control for
// the probes that must fail).
#include "analysis/records/job_outcome.hpp"
#include "platforms/platform_spec.hpp"
#include "schedulers/cluster_state.hpp"
#include "sim/core/network.hpp"
#include "sim/core/replay.hpp"
#include "workloads/job.hpp"
