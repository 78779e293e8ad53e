#pragma once
// Turns SWF records into the jobs the simulator replays.

#include <vector>

#include "workloads/job.hpp"
#include "workloads/swf_reader.hpp"

namespace nvlsim {

// GPUs = allocated processors, or requested processors when allocated is -1 (0 when both are unknown).
// Submit times are shifted so the earliest job submits at t = 0. Time limit = requested time, or the
// trace run time when requested time is -1. Jobs come back sorted by submit time, ties in file order.
std::vector<Job> jobs_from_swf(const SwfTrace& trace);

}  // namespace nvlsim
