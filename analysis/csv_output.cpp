#include "analysis/csv_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "analysis/interval_set.hpp"
#include "analysis/sample_steps.hpp"

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

void write_row(std::string& line, const std::string& policy, const Job& job, const JobOutcome& o,
               std::string_view class_name) {
  const bool ran = o.state != FinalState::rejected;
  const double exec = ran ? o.finish - o.start : NAN;
  const double wait = ran ? o.start - job.submit_time : NAN;
  const double turnaround = ran ? o.finish - job.submit_time : NAN;
  const double stretch = ran && exec > 0 ? turnaround / exec : NAN;
  line.clear();
  fmt::format_to(std::back_inserter(line),
                 "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.0f},{:.0f},{},{},{}\n",
                 quoted(policy), job.id, num(job.submit_time), job.gpus, num(job.time_limit),
                 o.state == FinalState::completed_successfully ? 1 : 0, to_string(o.state),
                 ran ? num(o.start) : "", num(exec), ran ? num(o.finish) : "", num(wait), num(turnaround),
                 num(stretch), interval_set(o.gpus), num(job.run_time), o.domains, o.restarts, o.comm_bytes,
                 o.cross_domain_bytes, num(o.bw_efficiency), quoted(o.reason), quoted(class_name));
}

// 0..n-1 in ascending order of key(i); equal keys keep index order.
template <class Key>
std::vector<std::size_t> sorted_order(std::size_t n, Key key) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return order;
}

}  // namespace

void write_jobs_csv(std::ostream& out, std::span<const Job> jobs, std::span<const PolicyOutcomes> runs,
                    std::span<const std::string> class_names) {
  out << "policy,job_id,submission_time,requested_number_of_resources,requested_time,success,final_state,"
         "starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,"
         "trace_run_time,domains,restarts,comm_bytes,cross_domain_bytes,bw_efficiency,reason,class\n";
  const auto by_policy =
      sorted_order(runs.size(), [&](std::size_t i) -> const std::string& { return runs[i].policy; });
  const auto by_id = sorted_order(jobs.size(), [&](std::size_t i) { return jobs[i].id; });
  std::string line;
  for (std::size_t p : by_policy) {
    for (std::size_t j : by_id) {
      const auto k = static_cast<std::size_t>(jobs[j].job_class);
      write_row(line, runs[p].policy, jobs[j], runs[p].outcomes[j],
                k < class_names.size() ? class_names[k] : "");
      out << line;
    }
  }
}

void write_attempts_csv(std::ostream& out, std::span<const Job> jobs, std::span<const PolicyOutcomes> runs) {
  out << "policy,job_id,attempt,starting_time,finish_time,execution_time,final_state,allocated_resources,"
         "work_done_time,work_kept_time,reason\n";
  const auto by_policy =
      sorted_order(runs.size(), [&](std::size_t i) -> const std::string& { return runs[i].policy; });
  const auto by_id = sorted_order(jobs.size(), [&](std::size_t i) { return jobs[i].id; });
  std::string line;
  for (std::size_t p : by_policy) {
    const PolicyOutcomes& run = runs[p];
    // Killed attempts of each job, in attempt order (they were recorded in time order).
    std::vector<std::vector<const AttemptRecord*>> killed(jobs.size());
    for (const AttemptRecord& k : run.killed) killed[k.job].push_back(&k);
    for (std::size_t j : by_id) {
      const JobOutcome& o = run.outcomes[j];
      if (o.state == FinalState::rejected) continue;
      double kept = 0;
      for (const AttemptRecord* k : killed[j]) {
        line.clear();
        fmt::format_to(std::back_inserter(line), "{},{},{},{},{},{},{},{},{},{},{}\n", quoted(run.policy),
                       jobs[j].id, k->attempt, num(k->start), num(k->finish), num(k->finish - k->start),
                       to_string(FinalState::completed_killed), interval_set(k->gpus), num(k->work_done),
                       num(k->work_kept), quoted(k->reason));
        out << line;
        kept += k->work_kept;
      }
      if (static_cast<int>(killed[j].size()) > o.restarts) continue;  // the last attempt was killed too
      const bool success = o.state == FinalState::completed_successfully;
      line.clear();
      fmt::format_to(std::back_inserter(line), "{},{},{},{},{},{},{},{},{},{},{}\n", quoted(run.policy),
                     jobs[j].id, o.restarts, num(o.start), num(o.finish), num(o.finish - o.start),
                     to_string(o.state), interval_set(o.gpus), success ? num(jobs[j].run_time - kept) : "",
                     success ? num(jobs[j].run_time - kept) : "", quoted(o.reason));
      out << line;
    }
  }
}

void write_summary_csv(std::ostream& out, std::span<const Summary> summaries) {
  using Cell = std::string (*)(const Summary&);
  // Header and cells from one list, so they cannot drift apart; new columns go at the end.
  static const std::pair<const char*, Cell> columns[] = {
      {"policy", [](const Summary& s) { return quoted(s.policy); }},
      {"nb_jobs", [](const Summary& s) { return fmt::format("{}", s.nb_jobs); }},
      {"nb_jobs_success", [](const Summary& s) { return fmt::format("{}", s.nb_jobs_success); }},
      {"nb_jobs_killed", [](const Summary& s) { return fmt::format("{}", s.nb_jobs_killed); }},
      {"nb_jobs_rejected", [](const Summary& s) { return fmt::format("{}", s.nb_jobs_rejected); }},
      {"makespan", [](const Summary& s) { return num(s.makespan); }},
      {"mean_waiting_time", [](const Summary& s) { return num(s.mean_waiting_time); }},
      {"max_waiting_time", [](const Summary& s) { return num(s.max_waiting_time); }},
      {"mean_turnaround_time", [](const Summary& s) { return num(s.mean_turnaround_time); }},
      {"mean_slowdown", [](const Summary& s) { return num(s.mean_slowdown); }},
      {"gpu_utilization", [](const Summary& s) { return num(s.gpu_utilization); }},
      {"cross_domain_jobs", [](const Summary& s) { return fmt::format("{}", s.cross_domain_jobs); }},
      {"bw_utilization", [](const Summary& s) { return num(s.bw_utilization); }},
      {"bw_efficiency_p10", [](const Summary& s) { return num(s.bandwidth.bw_efficiency_p10); }},
      {"bw_efficiency_p50", [](const Summary& s) { return num(s.bandwidth.bw_efficiency_p50); }},
      {"bw_efficiency_p90", [](const Summary& s) { return num(s.bandwidth.bw_efficiency_p90); }},
      {"cross_domain_gpu_hours", [](const Summary& s) { return num(s.bandwidth.cross_domain_gpu_hours); }},
      {"slowdown_gpu_hours", [](const Summary& s) { return num(s.bandwidth.slowdown_gpu_hours); }},
      {"nvlink_utilization", [](const Summary& s) { return num(s.bandwidth.nvlink_utilization); }},
      {"ib_utilization", [](const Summary& s) { return num(s.bandwidth.ib_utilization); }},
      {"stranded_gpu_hours", [](const Summary& s) { return num(s.fragmentation.stranded_gpu_hours); }},
      {"fragmentation", [](const Summary& s) { return num(s.fragmentation.fragmentation); }},
      {"idle_while_queued_gpu_hours",
       [](const Summary& s) { return num(s.fragmentation.idle_while_queued_gpu_hours); }},
      {"fgd_fragmentation", [](const Summary& s) { return num(s.fragmentation.fgd_fragmentation); }},
      {"gpu_hour_usd", [](const Summary& s) { return num(s.idle.gpu_hour_usd); }},
      {"busy_gpu_hours", [](const Summary& s) { return num(s.idle.busy_gpu_hours); }},
      {"idle_gpu_hours", [](const Summary& s) { return num(s.idle.idle_gpu_hours); }},
      {"idle_cost_usd", [](const Summary& s) { return num(s.idle.idle_cost_usd()); }},
      {"idle_no_demand_gpu_hours", [](const Summary& s) { return num(s.idle.idle_no_demand_gpu_hours); }},
      {"idle_no_demand_cost_usd", [](const Summary& s) { return num(s.idle.idle_no_demand_cost_usd()); }},
      {"idle_scheduling_gpu_hours", [](const Summary& s) { return num(s.idle.idle_scheduling_gpu_hours); }},
      {"idle_scheduling_cost_usd", [](const Summary& s) { return num(s.idle.idle_scheduling_cost_usd()); }},
      {"idle_failure_gpu_hours", [](const Summary& s) { return num(s.idle.idle_failure_gpu_hours); }},
      {"idle_failure_cost_usd", [](const Summary& s) { return num(s.idle.idle_failure_cost_usd()); }},
      {"slowdown_cost_usd", [](const Summary& s) { return num(s.slowdown_cost_usd); }},
      {"jobs_killed", [](const Summary& s) { return fmt::format("{}", s.failures.jobs_killed); }},
      {"down_gpu_hours", [](const Summary& s) { return num(s.failures.down_gpu_hours); }},
      {"failure_stranded_gpu_hours",
       [](const Summary& s) { return num(s.failures.failure_stranded_gpu_hours); }},
      {"lost_work_gpu_hours", [](const Summary& s) { return num(s.failures.lost_work_gpu_hours); }},
      {"goodput", [](const Summary& s) { return num(s.failures.goodput); }},
  };
  std::string text;
  for (const auto& [name, cell] : columns) {
    if (!text.empty()) text += ',';
    text += name;
  }
  text += '\n';
  for (const auto& s : summaries) {
    bool first = true;
    for (const auto& [name, cell] : columns) {
      if (!first) text += ',';
      first = false;
      text += cell(s);
    }
    text += '\n';
  }
  out << text;
}

void write_timeseries_csv(std::ostream& out, std::span<const PolicySamples> runs, double step) {
  out << "policy,time,busy_gpus,free_gpus,down_gpus,stranded_gpus,queued_jobs,queued_gpus,nvlink_util,ib_"
         "util,held_idle_gpus,fgd_fragment_gpus,largest_free_run_max,idle_domains,failure_stranded_gpus\n";
  const auto by_policy =
      sorted_order(runs.size(), [&](std::size_t i) -> const std::string& { return runs[i].policy; });
  std::string line;
  for (std::size_t p : by_policy) {
    const std::string policy = quoted(runs[p].policy);
    for (const SampleRow& row : sample_rows(runs[p].samples, step)) {
      const StateSample& s = runs[p].samples[row.sample];
      line.clear();
      fmt::format_to(std::back_inserter(line), "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", policy,
                     num(row.time), s.busy_gpus, s.free_gpus, s.down_gpus, s.stranded_gpus, s.queued_jobs,
                     s.queued_gpus, num(s.nvlink_util), num(s.ib_util), s.held_idle_gpus,
                     num(s.fgd_fragment_gpus), s.largest_free_run, s.idle_domains, s.failure_stranded_gpus);
      out << line;
    }
  }
}

}  // namespace nvlsim
