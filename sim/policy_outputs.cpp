#include "sim/policy_outputs.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <vector>

#include "analysis/csv_output.hpp"
#include "analysis/summary_csv.hpp"
#include "sim/schedule_swf.hpp"
#include "workloads/swf_writer.hpp"

namespace nvlsim {

namespace {

constexpr const char* kJobs = "jobs.csv";
constexpr const char* kAttempts = "attempts.csv";
constexpr const char* kTimeseries = "timeseries.csv";
constexpr const char* kSchedule = "schedule.swf";

// Errors name the output file the part belongs to: that is the file the user asked for.
void write_part(const PartFiles& parts, std::size_t index, const char* file, std::string_view shown,
                const std::function<void(std::ostream&)>& rows) {
  const std::string name = (parts.dir() / shown).string();
  std::ofstream out(parts.path(index, file), std::ios::binary);
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write: {}", name, std::strerror(errno)));
  rows(out);
  out.flush();
  if (!out) throw std::runtime_error(fmt::format("{}: write failed: {}", name, std::strerror(errno)));
}

}  // namespace

PolicyReport report_policy(std::size_t index, const PolicyResult& result, std::span<const Job> jobs,
                           const SimulationConfig& config, int platform_gpus, const OutputRequest& request) {
  if (request.parts) {
    const PartFiles& parts = *request.parts;
    const PolicyOutcomes run{result.policy, result.outcomes, result.killed};
    std::vector<std::string> class_names;
    for (const JobClass& c : config.classes) class_names.push_back(c.name);
    write_part(parts, index, kJobs, kJobs,
               [&](std::ostream& out) { write_jobs_rows(out, jobs, run, class_names); });
    write_part(parts, index, kAttempts, kAttempts,
               [&](std::ostream& out) { write_attempts_rows(out, jobs, run); });
    write_part(parts, index, kTimeseries, kTimeseries, [&](std::ostream& out) {
      write_timeseries_rows(out, result.policy, result.samples, request.sample_step);
    });
    if (request.write_swf)
      write_part(parts, index, kSchedule, schedule_file_name(result.policy), [&](std::ostream& out) {
        const ScheduleSwf schedule =
            schedule_swf(result.policy, jobs, result.outcomes, config.classes, platform_gpus);
        write_swf(out, schedule.header, schedule.records);
      });
  }
  return {summarize(result.policy, jobs, result.outcomes, result.samples, platform_gpus, request.gpu_hour_usd,
                    result.killed, result.rack_failures),
          result.wall_seconds, result.samples.size()};
}

void join_outputs(OutputFiles& outputs, std::span<const PolicyReport> reports, const OutputRequest& request) {
  const PartFiles& parts = *request.parts;
  std::vector<std::string> policies;
  std::vector<Summary> summaries;
  for (const PolicyReport& r : reports) {
    policies.push_back(r.summary.policy);
    summaries.push_back(r.summary);
  }
  const std::vector<std::size_t> order = policy_row_order(policies);
  const auto joined = [&](const char* file, void (*header)(std::ostream&)) {
    outputs.write(file, [&](std::ostream& out) {
      header(out);
      for (std::size_t p : order) parts.append(out, p, file);
    });
  };
  joined(kJobs, write_jobs_header);
  if (request.write_swf)
    for (std::size_t p = 0; p < policies.size(); ++p)
      outputs.write(schedule_file_name(policies[p]),
                    [&](std::ostream& out) { parts.append(out, p, kSchedule); });
  joined(kAttempts, write_attempts_header);
  outputs.write("summary.csv", [&](std::ostream& out) { write_summary_csv(out, summaries); });
  joined(kTimeseries, write_timeseries_header);
}

}  // namespace nvlsim
