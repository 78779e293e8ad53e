#include "workloads/conversion_builder.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace nvlsim {

std::int64_t NameNumbers::number(std::string_view name) {
  const auto found = std::ranges::find(names_, name);
  if (found != names_.end()) return found - names_.begin() + 1;
  names_.emplace_back(name);
  return static_cast<std::int64_t>(names_.size());
}

std::string NameNumbers::listing() const {
  std::string text;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    // Names with spaces would break the "name=number" list; SWF readers only see the numbers anyway.
    std::string name = names_[i];
    std::ranges::replace(name, ' ', '_');
    text += fmt::format("{}{}={}", i ? " " : "", name, i + 1);
  }
  return text;
}

SwfRecord ran_job(std::int64_t number, std::int64_t submit, std::int64_t start, double run_time,
                  std::int64_t gpus, int status) {
  SwfRecord r;
  r.job_number = number;
  r.submit_time = static_cast<double>(submit);
  r.wait_time = static_cast<double>(start - submit);
  r.run_time = run_time;
  r.allocated_processors = r.requested_processors = gpus;
  r.status = status;
  return r;
}

void finish_conversion(Conversion& conversion, std::string_view computer, std::string_view queue_column,
                       const NameNumbers& queues) {
  auto& records = conversion.records;
  const double start =
      records.empty() ? 0 : std::ranges::min(records, {}, &SwfRecord::submit_time).submit_time;
  std::int64_t max_procs = 0;
  for (SwfRecord& r : records) {
    r.submit_time -= start;
    max_procs = std::max(max_procs, r.allocated_processors);
  }
  auto& h = conversion.header;
  h.emplace_back("Version", "2.2");
  h.emplace_back("Computer", std::string(computer));
  h.emplace_back("Note",
                 fmt::format("converted by nvlsim workload convert; processors are GPUs; job number = "
                             "row of the input; queue number = {} (see Queues)",
                             queue_column));
  h.emplace_back("UnixStartTime", fmt::format("{}", start));
  h.emplace_back("MaxJobs", fmt::format("{}", records.size()));
  h.emplace_back("MaxRecords", fmt::format("{}", records.size()));
  h.emplace_back("MaxProcs", fmt::format("{}", max_procs));
  h.emplace_back("Queues", queues.listing());
  h.emplace_back("RowsRead", fmt::format("{}", conversion.rows_read));
  for (const auto& [reason, count] : conversion.skipped.entries())
    h.emplace_back("Skipped", fmt::format("{} ({})", count, reason));
  for (const auto& [how, count] : conversion.adjusted.entries())
    h.emplace_back("Adjusted", fmt::format("{} ({})", count, how));
  for (const auto& [what, count] : conversion.kept.entries())
    h.emplace_back("Kept", fmt::format("{} ({})", count, what));
}

}  // namespace nvlsim
