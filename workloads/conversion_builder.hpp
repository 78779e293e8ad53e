#pragma once
// What the three converters share: numbering names (users, queues), the record of a job that ran, and
// finishing the SWF header.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/trace_conversion.hpp"

namespace nvlsim {

// Numbers names 1, 2, ... in order of first appearance (SWF fields hold integers only).
class NameNumbers {
 public:
  std::int64_t number(std::string_view name);
  // "a=1 b=2", for the header, so --classes rules can name them.
  std::string listing() const;

 private:
  std::vector<std::string> names_;
};

// GPUs per job a converter accepts: nvlsim counts GPUs in int.
inline constexpr std::int64_t kMaxJobGpus = 2'147'483'647;

// A job that was submitted at `submit`, started at `start` (s, as the log gives them) and ran `run_time` s
// on `gpus` GPUs, ending with SWF `status`; the caller adds user and queue.
SwfRecord ran_job(std::int64_t number, std::int64_t submit, std::int64_t start, double run_time,
                  std::int64_t gpus, int status);

// Shifts submit times so the earliest is 0 and writes the header: source format, UnixStartTime (the
// earliest submit time as the input gave it), MaxJobs, MaxProcs (largest job), the queue numbering and
// the rows read, skipped, adjusted and kept.
void finish_conversion(Conversion& conversion, std::string_view computer, std::string_view queue_column,
                       const NameNumbers& queues);

}  // namespace nvlsim
