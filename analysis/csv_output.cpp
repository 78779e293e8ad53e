#include "analysis/csv_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "analysis/csv_table.hpp"
#include "analysis/csv_text.hpp"
#include "analysis/interval_set.hpp"
#include "analysis/sample_steps.hpp"

namespace nvlsim {

namespace {

// 0..n-1 in ascending order of key(i); equal keys keep index order.
template <class Key>
std::vector<std::size_t> sorted_order(std::size_t n, Key key) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return order;
}

// Rows gather in a buffer that goes to the stream in large pieces.
class RowBuffer {
 public:
  explicit RowBuffer(std::ostream& out) : out_(out) {}
  ~RowBuffer() { out_ << line_; }
  RowBuffer(const RowBuffer&) = delete;
  RowBuffer& operator=(const RowBuffer&) = delete;
  template <class Row>
  void add(std::span<const CsvColumn<Row>> columns, const Row& row) {
    append_row(line_, columns, row);
    if (line_.size() >= kFlushAt) {
      out_ << line_;
      line_.clear();
    }
  }

 private:
  static constexpr std::size_t kFlushAt = 1 << 16;
  std::ostream& out_;
  std::string line_;
};

struct JobRow {
  const std::string& policy;
  const Job& job;
  const JobOutcome& o;
  std::string_view class_name;
  bool ran;
  double exec, wait, turnaround, stretch;  // NaN for a job that never ran
};

JobRow job_row(const std::string& policy, const Job& job, const JobOutcome& o, std::string_view class_name) {
  const bool ran = o.state != FinalState::rejected;
  const double exec = ran ? o.finish - o.start : NAN;
  const double turnaround = ran ? o.finish - job.submit_time : NAN;
  return {policy,
          job,
          o,
          class_name,
          ran,
          exec,
          ran ? o.start - job.submit_time : NAN,
          turnaround,
          ran && exec > 0 ? turnaround / exec : NAN};
}

using JobColumn = CsvColumn<JobRow>;
constexpr JobColumn kJobColumns[] = {
    {"policy", [](std::string& l, const JobRow& r) { append_quoted(l, r.policy); }},
    {"job_id", [](std::string& l, const JobRow& r) { append_integer(l, r.job.id); }},
    {"submission_time", [](std::string& l, const JobRow& r) { append_number(l, r.job.submit_time); }},
    {"requested_number_of_resources", [](std::string& l, const JobRow& r) { append_integer(l, r.job.gpus); }},
    {"requested_time", [](std::string& l, const JobRow& r) { append_number(l, r.job.time_limit); }},
    {"success", [](std::string& l,
                   const JobRow& r) { l += r.o.state == FinalState::completed_successfully ? '1' : '0'; }},
    {"final_state", [](std::string& l, const JobRow& r) { l += to_string(r.o.state); }},
    {"starting_time", [](std::string& l, const JobRow& r) { append_number(l, r.ran ? r.o.start : NAN); }},
    {"execution_time", [](std::string& l, const JobRow& r) { append_number(l, r.exec); }},
    {"finish_time", [](std::string& l, const JobRow& r) { append_number(l, r.ran ? r.o.finish : NAN); }},
    {"waiting_time", [](std::string& l, const JobRow& r) { append_number(l, r.wait); }},
    {"turnaround_time", [](std::string& l, const JobRow& r) { append_number(l, r.turnaround); }},
    {"stretch", [](std::string& l, const JobRow& r) { append_number(l, r.stretch); }},
    {"allocated_resources", [](std::string& l, const JobRow& r) { l += interval_set(r.o.gpus); }},
    {"trace_run_time", [](std::string& l, const JobRow& r) { append_number(l, r.job.run_time); }},
    {"domains", [](std::string& l, const JobRow& r) { append_integer(l, r.o.domains); }},
    {"restarts", [](std::string& l, const JobRow& r) { append_integer(l, r.o.restarts); }},
    {"comm_bytes", [](std::string& l,
                      const JobRow& r) { fmt::format_to(std::back_inserter(l), "{:.0f}", r.o.comm_bytes); }},
    {"cross_domain_bytes",
     [](std::string& l, const JobRow& r) {
       fmt::format_to(std::back_inserter(l), "{:.0f}", r.o.cross_domain_bytes);
     }},
    {"bw_efficiency", [](std::string& l, const JobRow& r) { append_number(l, r.o.bw_efficiency); }},
    {"reason", [](std::string& l, const JobRow& r) { append_quoted(l, r.o.reason); }},
    {"class", [](std::string& l, const JobRow& r) { append_quoted(l, r.class_name); }},
    {"gpu_share", [](std::string& l, const JobRow& r) { append_number(l, r.ran ? r.o.gpu_share : NAN); }},
};

// A killed attempt, or a job's last one; work_done and work_kept are NaN when not known.
struct AttemptRow {
  const std::string& policy;
  std::int64_t job_id;
  int attempt;
  double start, finish;
  FinalState state;
  std::span<const int> gpus;
  double work_done, work_kept;
  std::string_view reason;
};

using AttemptColumn = CsvColumn<AttemptRow>;
constexpr AttemptColumn kAttemptColumns[] = {
    {"policy", [](std::string& l, const AttemptRow& r) { append_quoted(l, r.policy); }},
    {"job_id", [](std::string& l, const AttemptRow& r) { append_integer(l, r.job_id); }},
    {"attempt", [](std::string& l, const AttemptRow& r) { append_integer(l, r.attempt); }},
    {"starting_time", [](std::string& l, const AttemptRow& r) { append_number(l, r.start); }},
    {"finish_time", [](std::string& l, const AttemptRow& r) { append_number(l, r.finish); }},
    {"execution_time", [](std::string& l, const AttemptRow& r) { append_number(l, r.finish - r.start); }},
    {"final_state", [](std::string& l, const AttemptRow& r) { l += to_string(r.state); }},
    {"allocated_resources", [](std::string& l, const AttemptRow& r) { l += interval_set(r.gpus); }},
    {"work_done_time", [](std::string& l, const AttemptRow& r) { append_number(l, r.work_done); }},
    {"work_kept_time", [](std::string& l, const AttemptRow& r) { append_number(l, r.work_kept); }},
    {"reason", [](std::string& l, const AttemptRow& r) { append_quoted(l, r.reason); }},
};

struct TimeRow {
  const std::string& policy;
  double time;
  const StateSample& s;
};

using TimeColumn = CsvColumn<TimeRow>;
constexpr TimeColumn kTimeColumns[] = {
    {"policy", [](std::string& l, const TimeRow& r) { append_quoted(l, r.policy); }},
    {"time", [](std::string& l, const TimeRow& r) { append_number(l, r.time); }},
    {"busy_gpus", [](std::string& l, const TimeRow& r) { append_integer(l, r.s.busy_gpus); }},
    {"free_gpus", [](std::string& l, const TimeRow& r) { append_integer(l, r.s.free_gpus); }},
    {"down_gpus", [](std::string& l, const TimeRow& r) { append_integer(l, r.s.down_gpus); }},
    {"stranded_gpus", [](std::string& l, const TimeRow& r) { append_number(l, r.s.stranded_gpus); }},
    {"queued_jobs", [](std::string& l, const TimeRow& r) { append_integer(l, r.s.queued_jobs); }},
    {"queued_gpus", [](std::string& l, const TimeRow& r) { append_integer(l, r.s.queued_gpus); }},
    {"nvlink_util", [](std::string& l, const TimeRow& r) { append_number(l, r.s.nvlink_util); }},
    {"ib_util", [](std::string& l, const TimeRow& r) { append_number(l, r.s.ib_util); }},
    {"held_idle_gpus", [](std::string& l, const TimeRow& r) { append_integer(l, r.s.held_idle_gpus); }},
    {"fgd_fragment_gpus", [](std::string& l, const TimeRow& r) { append_number(l, r.s.fgd_fragment_gpus); }},
    {"largest_free_run_max",
     [](std::string& l, const TimeRow& r) { append_integer(l, r.s.largest_free_run); }},
    {"idle_domains", [](std::string& l, const TimeRow& r) { append_integer(l, r.s.idle_domains); }},
    {"failure_stranded_gpus",
     [](std::string& l, const TimeRow& r) { append_integer(l, r.s.failure_stranded_gpus); }},
    {"shared_free_gpus", [](std::string& l, const TimeRow& r) { append_number(l, r.s.shared_free_gpus); }},
};

std::vector<std::size_t> by_job_id(std::span<const Job> jobs) {
  return sorted_order(jobs.size(), [&](std::size_t i) { return jobs[i].id; });
}

}  // namespace

std::vector<std::size_t> policy_row_order(std::span<const std::string> policies) {
  return sorted_order(policies.size(), [&](std::size_t i) -> const std::string& { return policies[i]; });
}

void write_jobs_header(std::ostream& out) {
  write_header<JobRow>(out, kJobColumns);
}

void write_jobs_rows(std::ostream& out, std::span<const Job> jobs, const PolicyOutcomes& run,
                     std::span<const std::string> class_names) {
  RowBuffer rows(out);
  for (std::size_t j : by_job_id(jobs)) {
    const auto k = static_cast<std::size_t>(jobs[j].job_class);
    const std::string_view class_name = k < class_names.size() ? std::string_view(class_names[k]) : "";
    rows.add<JobRow>(kJobColumns, job_row(run.policy, jobs[j], run.outcomes[j], class_name));
  }
}

void write_attempts_header(std::ostream& out) {
  write_header<AttemptRow>(out, kAttemptColumns);
}

void write_attempts_rows(std::ostream& out, std::span<const Job> jobs, const PolicyOutcomes& run) {
  // Killed attempts of each job, in attempt order (they were recorded in time order).
  std::vector<std::vector<const AttemptRecord*>> killed(jobs.size());
  for (const AttemptRecord& k : run.killed) killed[k.job].push_back(&k);
  RowBuffer rows(out);
  for (std::size_t j : by_job_id(jobs)) {
    const JobOutcome& o = run.outcomes[j];
    if (o.state == FinalState::rejected) continue;
    double kept = 0;
    for (const AttemptRecord* k : killed[j]) {
      rows.add<AttemptRow>(kAttemptColumns,
                           {run.policy, jobs[j].id, k->attempt, k->start, k->finish,
                            FinalState::completed_killed, k->gpus, k->work_done, k->work_kept, k->reason});
      kept += k->work_kept;
    }
    if (static_cast<int>(killed[j].size()) > o.restarts) continue;  // the last attempt was killed too
    const double work = o.state == FinalState::completed_successfully ? jobs[j].run_time - kept : NAN;
    rows.add<AttemptRow>(kAttemptColumns, {run.policy, jobs[j].id, o.restarts, o.start, o.finish, o.state,
                                           o.gpus, work, work, o.reason});
  }
}

void write_timeseries_header(std::ostream& out) {
  write_header<TimeRow>(out, kTimeColumns);
}

void write_timeseries_rows(std::ostream& out, const std::string& policy, std::span<const StateSample> samples,
                           double step) {
  RowBuffer rows(out);
  for (const SampleRow& row : sample_rows(samples, step))
    rows.add<TimeRow>(kTimeColumns, {policy, row.time, samples[row.sample]});
}

}  // namespace nvlsim
