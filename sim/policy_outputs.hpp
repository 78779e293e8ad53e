#pragma once
// The output files are written where their rows are computed: each policy's child process summarizes
// its replay and writes its rows of jobs.csv, attempts.csv and timeseries.csv (and its schedule) as part
// files; the parent joins the parts under one header, so that it never holds any policy's rows.

#include <cstddef>
#include <span>

#include "sim/core/simulation_config.hpp"
#include "sim/output_files.hpp"
#include "sim/part_files.hpp"
#include "sim/policy_report.hpp"
#include "sim/policy_run.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

struct OutputRequest {
  double gpu_hour_usd = 0;           // prices the summary's idle and slowdown figures
  const PartFiles* parts = nullptr;  // where children write their rows; null: no rows written
  double sample_step = 0;            // timeseries.csv's step (--sample)
  bool write_swf = false;            // also each policy's schedule-POLICY.swf
};

// In policy number `index`'s process, after its replay: its report, and its parts when asked. Throws
// std::runtime_error naming the file on a write error, InputError for a --sample step that asks too much.
PolicyReport report_policy(std::size_t index, const PolicyResult& result, std::span<const Job> jobs,
                           const SimulationConfig& config, int platform_gpus, const OutputRequest& request);

// In the parent, once every child succeeded: writes jobs.csv, the schedules, attempts.csv, summary.csv
// and timeseries.csv to `outputs`, in that order, from the parts of the policies `reports` summarize (in
// policy order). The rows are as one process writing every policy's would order them.
void join_outputs(OutputFiles& outputs, std::span<const PolicyReport> reports, const OutputRequest& request);

}  // namespace nvlsim
