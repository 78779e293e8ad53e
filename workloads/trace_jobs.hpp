#pragma once
// Turns SWF records into the jobs the simulator replays.

#include <limits>
#include <vector>

#include "workloads/job.hpp"
#include "workloads/job_class.hpp"
#include "workloads/swf_reader.hpp"

namespace nvlsim {

struct TraceJobOptions {
  int procs_per_gpu = 1;                // a job needs ceil(processors / this) GPUs (CPU traces)
  const ClassTable* classes = nullptr;  // nullptr: every job is class 0
  // Time limit of a job whose requested time is unknown (-1): Slurm gives it the partition's DefaultTime,
  // or its MaxTime when DefaultTime is unset, and MaxTime defaults to INFINITE.
  double default_time = std::numeric_limits<double>::infinity();
};

// GPUs = ceil(processors / procs_per_gpu), processors being allocated processors, or requested processors
// when allocated is -1 (0 GPUs when both are unknown). Submit times are shifted so the earliest job submits
// at t = 0. Time limit = requested time, or options.default_time when requested time is -1. gpu_milli =
// field 19 when it asks for part of a GPU (1-999), else 0; the job's GPUs stay whole. Classes come
// from the table's rules, or, when its file gave none, from the trace's "; Classes:" header. Jobs come
// back sorted by submit time, ties in file order.
std::vector<Job> jobs_from_swf(const SwfTrace& trace, const TraceJobOptions& options = {});

}  // namespace nvlsim
