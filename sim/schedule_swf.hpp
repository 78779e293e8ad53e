#pragma once
// --write-swf: one policy's simulated schedule as an SWF trace.

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "analysis/records/job_outcome.hpp"
#include "workloads/job.hpp"
#include "workloads/job_class.hpp"
#include "workloads/swf_record.hpp"

namespace nvlsim {

struct ScheduleSwf {
  std::vector<std::pair<std::string, std::string>> header;
  std::vector<SwfRecord> records;  // by job number
};

// Submit time as replayed (the trace's first job at 0), wait = start - submit, run = finish - start,
// allocated = GPUs given, requested = GPUs asked (the trace's count), requested time = time limit (-1 for a
// job without one, as SWF marks an unknown requested time), status 1 completed, 0 failed or killed at its
// limit, 5 killed; rejected jobs have wait and run -1 and status 5. Executable number = class index + 1,
// named by the header's Classes line, so replaying the file keeps the classes.
ScheduleSwf schedule_swf(const std::string& policy, std::span<const Job> jobs,
                         std::span<const JobOutcome> outcomes, std::span<const JobClass> classes,
                         int platform_gpus);

// "schedule-<policy>.swf", the policy spec's characters outside [A-Za-z0-9._-] replaced by '_'.
std::string schedule_file_name(const std::string& policy);

}  // namespace nvlsim
