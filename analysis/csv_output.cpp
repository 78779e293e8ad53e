#include "analysis/csv_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "analysis/interval_set.hpp"

namespace nvlsim {

namespace {

// Shortest text that reads back as the same double; empty for undefined values.
std::string num(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : std::string();
}

std::string quoted(std::string_view text) {
  if (text.find_first_of(",\"\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

void write_row(std::string& line, const std::string& policy, const Job& job, const JobOutcome& o) {
  const bool ran = o.state != FinalState::rejected;
  const double exec = ran ? o.finish - o.start : NAN;
  const double wait = ran ? o.start - job.submit_time : NAN;
  const double turnaround = ran ? o.finish - job.submit_time : NAN;
  const double stretch = ran && exec > 0 ? turnaround / exec : NAN;
  line.clear();
  fmt::format_to(std::back_inserter(line),
                 "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.0f},{:.0f},{},{}\n", quoted(policy),
                 job.id, num(job.submit_time), job.gpus, num(job.time_limit),
                 o.state == FinalState::completed_successfully ? 1 : 0, to_string(o.state),
                 ran ? num(o.start) : "", num(exec), ran ? num(o.finish) : "", num(wait), num(turnaround),
                 num(stretch), interval_set(o.gpus), num(job.run_time), o.domains, o.restarts, o.comm_bytes,
                 o.cross_domain_bytes, num(o.bw_efficiency), quoted(o.reason));
}

}  // namespace

void write_jobs_csv(std::ostream& out, std::span<const Job> jobs, std::span<const PolicyOutcomes> runs) {
  out << "policy,job_id,submission_time,requested_number_of_resources,requested_time,success,final_state,"
         "starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,"
         "trace_run_time,domains,restarts,comm_bytes,cross_domain_bytes,bw_efficiency,reason\n";
  std::vector<std::size_t> by_policy(runs.size());
  std::iota(by_policy.begin(), by_policy.end(), 0);
  std::stable_sort(by_policy.begin(), by_policy.end(),
                   [&](std::size_t a, std::size_t b) { return runs[a].policy < runs[b].policy; });
  std::vector<std::size_t> by_id(jobs.size());
  std::iota(by_id.begin(), by_id.end(), 0);
  std::stable_sort(by_id.begin(), by_id.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].id < jobs[b].id; });
  std::string line;
  for (std::size_t p : by_policy) {
    for (std::size_t j : by_id) {
      write_row(line, runs[p].policy, jobs[j], runs[p].outcomes[j]);
      out << line;
    }
  }
}

void write_summary_csv(std::ostream& out, std::span<const Summary> summaries) {
  out << "policy,nb_jobs,nb_jobs_success,nb_jobs_killed,nb_jobs_rejected,makespan,mean_waiting_time,"
         "max_waiting_time,mean_turnaround_time,mean_slowdown,gpu_utilization,cross_domain_jobs,bw_"
         "utilization\n";
  for (const auto& s : summaries) {
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", quoted(s.policy), s.nb_jobs,
                       s.nb_jobs_success, s.nb_jobs_killed, s.nb_jobs_rejected, num(s.makespan),
                       num(s.mean_waiting_time), num(s.max_waiting_time), num(s.mean_turnaround_time),
                       num(s.mean_slowdown), num(s.gpu_utilization), s.cross_domain_jobs,
                       num(s.bw_utilization));
  }
}

}  // namespace nvlsim
