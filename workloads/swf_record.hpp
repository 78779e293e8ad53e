#pragma once
// One job line of a Standard Workload Format (Parallel Workloads Archive v2.2) trace, all 18 fields, and
// nvlsim's field 19 where the header declares it. -1 means unknown, as in the format.

#include <array>
#include <cstdint>
#include <string_view>

namespace nvlsim {

struct SwfRecord {
  std::int64_t job_number = -1;            //  1
  double submit_time = -1;                 //  2 s
  double wait_time = -1;                   //  3 s
  double run_time = -1;                    //  4 s
  std::int64_t allocated_processors = -1;  //  5
  double average_cpu_time = -1;            //  6 s
  double used_memory = -1;                 //  7 KB per processor
  std::int64_t requested_processors = -1;  //  8
  double requested_time = -1;              //  9 s
  double requested_memory = -1;            // 10 KB per processor
  std::int64_t status = -1;                // 11: 1 completed, 0 failed, 5 cancelled
  std::int64_t user_id = -1;               // 12
  std::int64_t group_id = -1;              // 13
  std::int64_t executable_number = -1;     // 14
  std::int64_t queue_number = -1;          // 15
  std::int64_t partition_number = -1;      // 16
  std::int64_t preceding_job = -1;         // 17
  double think_time = -1;                  // 18 s
  // 19, nvlsim's extension, only in a trace whose header declares "; Field19: gpu_milli": thousandths of
  // one GPU the job asks (1-1000, a job of 1 processor), -1 = whole GPUs, as every plain SWF job asks.
  std::int64_t gpu_milli = -1;
};

inline constexpr int kSwfFieldCount = 18;

// The header entry that declares field 19, as "; Field19: gpu_milli" (key and its only value). SWF has no
// field for part of a GPU; a reader that does not know the entry sees one field too many and says so.
inline constexpr std::string_view kGpuMilliHeaderKey = "Field19";
inline constexpr std::string_view kGpuMilliFieldName = "gpu_milli";
inline constexpr int kGpuMilliField = 19;
inline constexpr std::int64_t kWholeGpuMilli = 1000;
// Largest time a trace may give (fields 2, 3, 4, 6, 9, 18), 1e15 s as the converters bound theirs: a
// double's step there is 0.125 s, so a schedule's times keep their order, and 1e20 used to pass and come out
// as a job killed at its limit after 0 s.
inline constexpr double kMaxSwfSeconds = 1e15;

// Field names as the SWF definition gives them, index 0 = field 1.
inline constexpr std::array<std::string_view, kSwfFieldCount> kSwfFieldNames = {"job number",
                                                                                "submit time",
                                                                                "wait time",
                                                                                "run time",
                                                                                "allocated processors",
                                                                                "average CPU time",
                                                                                "used memory",
                                                                                "requested processors",
                                                                                "requested time",
                                                                                "requested memory",
                                                                                "status",
                                                                                "user id",
                                                                                "group id",
                                                                                "executable number",
                                                                                "queue number",
                                                                                "partition number",
                                                                                "preceding job",
                                                                                "think time"};

}  // namespace nvlsim
