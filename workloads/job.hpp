#pragma once
// A job as the simulator replays it: what it asks for and how long it ran in the trace.

#include <cstddef>
#include <cstdint>

namespace nvlsim {

struct Job {
  std::int64_t id = 0;     // SWF job number
  double submit_time = 0;  // s since the trace's first submission
  int gpus = 0;            // GPUs requested (0 when the trace does not say)
  double time_limit = 0;   // s; SWF requested time, else --default-time; +infinity = no limit
  double run_time = 0;     // s; trace run time T (-1 when the trace does not say)
  std::size_t line = 0;    // line of the trace file, for messages
  int job_class = 0;       // index into the run's class table (workloads/job_class.hpp)
  // Thousandths of one GPU when the job asks for part of one (1-999, then gpus == 1); 0 = whole GPUs.
  // Only SWF field 19, declared by a "; Field19: gpu_milli" header, sets it (docs/workloads.md). Under
  // --gpu-sharing shard or mps the job asks for shares of its GPU (sim/core/job_requests.hpp); without,
  // it holds `gpus` whole GPUs.
  int gpu_milli = 0;
};

}  // namespace nvlsim
