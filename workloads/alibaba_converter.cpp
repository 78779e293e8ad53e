// Alibaba GPU cluster trace v2023 (openb_pod_list_*.csv, alibaba/clusterdata cluster-trace-gpu-v2023):
// one pod per row; times in seconds from the trace's start.

#include "workloads/conversion_builder.hpp"
#include "workloads/csv_rows.hpp"
#include "workloads/trace_conversion.hpp"

namespace nvlsim {

namespace {

enum Column { kNumGpu, kGpuMilli, kQos, kPhase, kCreation, kDeletion, kScheduled };

std::int64_t status_of(std::string_view phase) {
  if (phase == "Succeeded") return 1;
  if (phase == "Failed") return 0;
  return -1;  // Running at the trace's end: its deletion time is when the trace stopped
}

}  // namespace

Conversion convert_alibaba(const std::filesystem::path& input) {
  CsvRows rows(input, {"num_gpu", "gpu_milli", "qos", "pod_phase", "creation_time", "deletion_time",
                       "scheduled_time"});
  Conversion out;
  NameNumbers queues;
  while (rows.next()) {
    const auto row = static_cast<std::int64_t>(++out.rows_read);
    const auto gpus = rows.integer(kNumGpu, 0, kMaxJobGpus);
    const auto milli = rows.integer(kGpuMilli);
    const auto creation = rows.time(kCreation);
    const auto deletion = rows.time(kDeletion);
    const auto scheduled = rows.time(kScheduled);
    if (!gpus) rows.fail(kNumGpu, "empty");
    if (!creation) rows.fail(kCreation, "empty");
    if (*gpus == 0) {
      out.skipped.add("requests no GPU (CPU-only pod)");
      continue;
    }
    if (!scheduled) {
      out.skipped.add("never scheduled (no scheduled_time)");
      continue;
    }
    if (!deletion) {
      out.skipped.add("no deletion_time");
      continue;
    }
    if (*scheduled < *creation || *deletion < *scheduled) {
      out.skipped.add("times out of order (creation <= scheduled <= deletion fails)");
      continue;
    }
    // A GPU-sharing pod asks for part of one GPU; nvlsim does not share GPUs, so it takes a whole one.
    if (milli && *milli > 0 && *milli < 1000)
      out.adjusted.add("fractional GPU (gpu_milli < 1000) rounded up to 1");
    SwfRecord r = ran_job(row, *creation, *scheduled, static_cast<double>(*deletion - *scheduled), *gpus,
                          status_of(rows.cell(kPhase)));
    r.queue_number = queues.number(rows.cell(kQos));
    out.records.push_back(r);
  }
  finish_conversion(out, "Alibaba GPU cluster trace v2023 (pods)", "qos", queues);
  return out;
}

}  // namespace nvlsim
