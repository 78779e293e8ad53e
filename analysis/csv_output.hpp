#pragma once
// jobs.csv, attempts.csv and timeseries.csv (columns and units in docs/output.md), written one policy at a
// time: each policy's rows are written where it was replayed, and the files are its parts joined in
// policy_row_order under one header.

#include <cstddef>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "analysis/records/attempt_record.hpp"
#include "analysis/records/job_outcome.hpp"
#include "analysis/records/state_sample.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

struct PolicyOutcomes {
  std::string policy;
  std::span<const JobOutcome> outcomes;   // index = job index
  std::span<const AttemptRecord> killed;  // attempts failures killed
};

// Which policy's rows come first in jobs.csv, attempts.csv and timeseries.csv: by name, equal names in
// the given order.
std::vector<std::size_t> policy_row_order(std::span<const std::string> policies);

void write_jobs_header(std::ostream& out);
// One row per job, by job_id. The `class` column names each job's class from class_names (indexed by
// Job::job_class); empty when the index is outside it.
void write_jobs_rows(std::ostream& out, std::span<const Job> jobs, const PolicyOutcomes& run,
                     std::span<const std::string> class_names);

void write_attempts_header(std::ostream& out);
// One row per attempt of every job that started, by job_id and attempt: the attempts failures killed,
// then the job's last attempt (unless a failure ended that one too).
void write_attempts_rows(std::ostream& out, std::span<const Job> jobs, const PolicyOutcomes& run);

void write_timeseries_header(std::ostream& out);
// The cluster's state over time; `step` as in sample_rows (0 = every change).
void write_timeseries_rows(std::ostream& out, const std::string& policy, std::span<const StateSample> samples,
                           double step);

}  // namespace nvlsim
