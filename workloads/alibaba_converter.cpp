// Alibaba GPU cluster trace v2023 (openb_pod_list_*.csv, alibaba/clusterdata cluster-trace-gpu-v2023):
// one pod per row; times in seconds from the trace's start.

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "workloads/conversion_builder.hpp"
#include "workloads/csv_rows.hpp"
#include "workloads/trace_conversion.hpp"

namespace nvlsim {

namespace {

enum Column { kNumGpu, kGpuMilli, kQos, kPhase, kCreation, kDeletion, kScheduled };

// SWF status of a scheduled pod's phase; another phase is an error rather than a guess.
std::int64_t status_of(const CsvRows& rows) {
  const std::string_view phase = rows.cell(kPhase);
  if (phase == "Succeeded") return 1;
  if (phase == "Failed") return 0;
  if (phase == "Running") return -1;  // at the trace's end: its deletion time is when the trace stopped
  rows.fail(kPhase,
            fmt::format("expected Succeeded, Failed or Running for a scheduled pod, got \"{}\"", phase));
}

// A GPU-sharing pod asks for part of one GPU (num_gpu 1, gpu_milli 1-999): kept as SWF field 19. The
// trace's README defines gpu_milli for num_gpu == 1 only; elsewhere, and where it is 0 on a GPU pod, the
// pod takes whole GPUs, counted as adjusted so that nothing changes silently.
std::int64_t gpu_milli_of(std::int64_t gpus, std::optional<std::int64_t> milli, Conversion& out) {
  if (!milli || *milli == kWholeGpuMilli) return -1;
  if (*milli == 0) {
    out.adjusted.add("gpu_milli 0 on a GPU pod taken as whole GPUs");
    return -1;
  }
  if (gpus != 1) {
    out.adjusted.add("gpu_milli < 1000 on a pod of several GPUs taken as whole GPUs");
    return -1;
  }
  out.kept.add("fractional GPU (gpu_milli < 1000) in field 19");
  return *milli;
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
    const auto milli = rows.integer(kGpuMilli, 0, kWholeGpuMilli);
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
    SwfRecord r = ran_job(row, *creation, *scheduled, static_cast<double>(*deletion - *scheduled), *gpus,
                          status_of(rows));
    r.queue_number = queues.number(rows.cell(kQos));
    r.gpu_milli = gpu_milli_of(*gpus, milli, out);
    out.records.push_back(r);
  }
  finish_conversion(out, "Alibaba GPU cluster trace v2023 (pods)", "qos", queues);
  return out;
}

}  // namespace nvlsim
