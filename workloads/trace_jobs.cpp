#include "workloads/trace_jobs.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>

#include <fmt/core.h>

#include "models/input_error.hpp"

namespace nvlsim {

namespace {

constexpr std::size_t kAllocatedIndex = 4;
constexpr std::size_t kRequestedIndex = 7;

int gpu_count(const SwfRecord& record, int procs_per_gpu, const std::string& path, std::size_t line) {
  const bool allocated_known = record.allocated_processors != -1;
  const std::int64_t procs = allocated_known ? record.allocated_processors : record.requested_processors;
  if (procs == -1) return 0;
  // Rounded up without procs + procs_per_gpu - 1, which overflows for the largest counts.
  const std::int64_t count = procs / procs_per_gpu + (procs % procs_per_gpu != 0);
  if (count > std::numeric_limits<int>::max()) {
    const std::size_t index = allocated_known ? kAllocatedIndex : kRequestedIndex;
    throw InputError(fmt::format("{}:{}: field {} ({}): {} is too many GPUs", path, line, index + 1,
                                 kSwfFieldNames[index], count));
  }
  return static_cast<int>(count);
}

// Job::gpu_milli: the reader has checked field 19 (1-1000, one processor); 1000 is a whole GPU, as -1 is.
int fraction_of(const SwfRecord& record) {
  const bool whole = record.gpu_milli == -1 || record.gpu_milli == kWholeGpuMilli;
  return whole ? 0 : static_cast<int>(record.gpu_milli);
}

// A job number names one job in every output, so a second job with the same number is an error (SWF
// numbers jobs from 1 up, one per line).
void check_unique_ids(const SwfTrace& trace) {
  std::unordered_map<std::int64_t, std::size_t> first_line;
  first_line.reserve(trace.records.size());
  for (std::size_t i = 0; i < trace.records.size(); ++i) {
    const auto [it, inserted] = first_line.try_emplace(trace.records[i].job_number, trace.record_lines[i]);
    if (!inserted)
      throw InputError(fmt::format("{}:{}: field 1 ({}): job {} is already on line {}", trace.path,
                                   trace.record_lines[i], kSwfFieldNames[0], it->first, it->second));
  }
}

}  // namespace

std::vector<Job> jobs_from_swf(const SwfTrace& trace, const TraceJobOptions& options) {
  if (trace.records.empty()) {
    const std::string skipped =
        trace.skipped.empty() ? "" : fmt::format(", {} bad lines skipped", trace.skipped.size());
    throw InputError(fmt::format("{}: no jobs ({} lines read{})", trace.path, trace.lines_read, skipped));
  }
  check_unique_ids(trace);
  ClassTable classes = options.classes ? *options.classes : ClassTable{};
  if (options.classes && !classes.rules_from_file) {
    if (const auto header = trace.header.get("Classes"))
      classes.rules = rules_from_header(*header, classes, trace.path);
  }
  // The reader rejects unknown (-1) submit times, so the minimum is a real time.
  const double first_submit = std::ranges::min(trace.records, {}, &SwfRecord::submit_time).submit_time;

  std::vector<Job> jobs;
  jobs.reserve(trace.records.size());
  for (std::size_t i = 0; i < trace.records.size(); ++i) {
    const SwfRecord& record = trace.records[i];
    const std::size_t line = trace.record_lines[i];
    jobs.push_back({.id = record.job_number,
                    .submit_time = record.submit_time - first_submit,
                    .gpus = gpu_count(record, options.procs_per_gpu, trace.path, line),
                    .time_limit = record.requested_time != -1 ? record.requested_time : options.default_time,
                    .run_time = record.run_time,
                    .line = line,
                    .job_class = classes.classify(record),
                    .gpu_milli = fraction_of(record)});
  }
  std::ranges::stable_sort(jobs, {}, &Job::submit_time);
  return jobs;
}

}  // namespace nvlsim
