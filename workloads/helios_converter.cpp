// Helios / Acme cluster_log.csv (S-Lab-System-Group): one job per row, calendar times.

#include "workloads/conversion_builder.hpp"
#include "workloads/csv_rows.hpp"
#include "workloads/trace_conversion.hpp"

namespace nvlsim {

namespace {

enum Column { kUser, kVc, kGpuNum, kState, kSubmit, kStart, kEnd, kDuration };

std::int64_t status_of(std::string_view state) {
  if (state == "COMPLETED") return 1;
  if (state == "CANCELLED") return 5;
  if (state == "FAILED" || state == "TIMEOUT" || state == "NODE_FAIL" || state == "OUT_OF_MEMORY") return 0;
  return -1;
}

}  // namespace

Conversion convert_helios(const std::filesystem::path& input) {
  CsvRows rows(input,
               {"user", "vc", "gpu_num", "state", "submit_time", "start_time", "end_time", "duration"});
  Conversion out;
  NameNumbers users;
  NameNumbers queues;
  while (rows.next()) {
    const auto row = static_cast<std::int64_t>(++out.rows_read);
    const auto gpus = rows.integer(kGpuNum, 0, kMaxJobGpus);
    const auto submit = rows.time(kSubmit);
    const auto start = rows.time(kStart);
    const auto end = rows.time(kEnd);
    const auto duration = rows.integer(kDuration, -kMaxTraceSeconds, kMaxTraceSeconds);
    if (!gpus) rows.fail(kGpuNum, "empty");
    if (!submit) rows.fail(kSubmit, "empty");
    if (*gpus == 0) {
      out.skipped.add("requests no GPU (CPU job)");
      continue;
    }
    if (!start) {
      out.skipped.add("never started (no start_time)");
      continue;
    }
    if (!end && !duration) {
      out.skipped.add("no end_time and no duration");
      continue;
    }
    // The log's own duration is the run time; end - start only stands in when it is missing.
    const std::int64_t run = duration ? *duration : *end - *start;
    if (*start < *submit || run < 0) {
      out.skipped.add("times out of order (submit <= start, duration >= 0 fails)");
      continue;
    }
    SwfRecord r =
        ran_job(row, *submit, *start, static_cast<double>(run), *gpus, status_of(rows.cell(kState)));
    r.user_id = users.number(rows.cell(kUser));
    r.queue_number = queues.number(rows.cell(kVc));
    out.records.push_back(r);
  }
  finish_conversion(out, "Helios / Acme cluster_log.csv", "vc", queues);
  return out;
}

}  // namespace nvlsim
