#pragma once
// Writes jobs.csv, attempts.csv, summary.csv and timeseries.csv (columns and units in docs/output.md).

#include <ostream>
#include <span>
#include <string>

#include "analysis/attempt_record.hpp"
#include "analysis/job_outcome.hpp"
#include "analysis/state_sample.hpp"
#include "analysis/summary.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

struct PolicyOutcomes {
  std::string policy;
  std::span<const JobOutcome> outcomes;   // index = job index
  std::span<const AttemptRecord> killed;  // attempts failures killed
};

// One row per job per policy, sorted by policy name then job_id. The `class` column names each job's class
// from class_names (indexed by Job::job_class); empty when the index is outside it.
void write_jobs_csv(std::ostream& out, std::span<const Job> jobs, std::span<const PolicyOutcomes> runs,
                    std::span<const std::string> class_names = {});
// One row per attempt of every job that started, sorted by policy, job_id and attempt: the attempts
// failures killed, then the job's last attempt (unless a failure ended that one too).
void write_attempts_csv(std::ostream& out, std::span<const Job> jobs, std::span<const PolicyOutcomes> runs);
void write_summary_csv(std::ostream& out, std::span<const Summary> summaries);

struct PolicySamples {
  std::string policy;
  std::span<const StateSample> samples;
};

// The cluster's state over time, sorted by policy name; `step` as in sample_rows (0 = every change).
void write_timeseries_csv(std::ostream& out, std::span<const PolicySamples> runs, double step);

}  // namespace nvlsim
