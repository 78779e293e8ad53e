#include "sim/schedule_swf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

namespace nvlsim {

namespace {

std::int64_t status_of(FinalState state) {
  switch (state) {
    case FinalState::completed_successfully:
      return 1;
    case FinalState::completed_failed:
    case FinalState::completed_walltime_reached:
      return 0;
    case FinalState::completed_killed:
    case FinalState::rejected:
      return 5;
  }
  return -1;
}

}  // namespace

ScheduleSwf schedule_swf(const std::string& policy, std::span<const Job> jobs,
                         std::span<const JobOutcome> outcomes, std::span<const JobClass> classes,
                         int platform_gpus) {
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(order, {}, [&](std::size_t j) { return jobs[j].id; });
  ScheduleSwf out;
  out.records.reserve(jobs.size());
  for (std::size_t j : order) {
    const Job& job = jobs[j];
    const JobOutcome& o = outcomes[j];
    const bool ran = o.state != FinalState::rejected;
    SwfRecord r;
    r.job_number = job.id;
    r.submit_time = job.submit_time;
    r.wait_time = ran ? o.start - job.submit_time : -1;
    r.run_time = ran ? o.finish - o.start : -1;
    r.allocated_processors = ran ? static_cast<std::int64_t>(o.gpus.size()) : -1;
    r.requested_processors = job.gpus;
    r.requested_time = std::isfinite(job.time_limit) ? job.time_limit : -1;  // SWF's "unknown": no limit
    r.status = status_of(o.state);
    r.executable_number = job.job_class + 1;
    if (job.gpu_milli > 0) r.gpu_milli = job.gpu_milli;  // the writer declares field 19 when any job has one
    out.records.push_back(r);
  }
  std::string class_list;
  for (std::size_t k = 0; k < classes.size(); ++k)
    class_list += fmt::format("{}{}={}", k ? " " : "", classes[k].name, k + 1);
  out.header = {{"Version", "2.2"},
                {"Computer", fmt::format("nvlsim simulated schedule, policy {}", policy)},
                {"Note",
                 "processors are GPUs; times in s from the trace's first submission; executable number = "
                 "class (see Classes)"},
                {"UnixStartTime", "0"},
                {"MaxJobs", fmt::format("{}", jobs.size())},
                {"MaxRecords", fmt::format("{}", jobs.size())},
                {"MaxProcs", fmt::format("{}", platform_gpus)},
                {"Classes", class_list}};
  return out;
}

std::string schedule_file_name(const std::string& policy) {
  std::string name = policy;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  return "schedule-" + name + ".swf";
}

}  // namespace nvlsim
