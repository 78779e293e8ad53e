#include "analysis/summary_csv.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <variant>

#include "analysis/csv_text.hpp"
#include "models/read_number.hpp"

namespace nvlsim {

namespace {

// A column is a field of Summary, reached through one accessor used both to write and to read it back, or
// a figure derived from fields (written only: reading the fields gives it back).
using TextField = std::string& (*)(Summary&);
using CountField = long& (*)(Summary&);
using NumberField = double& (*)(Summary&);
using Derived = double (*)(const Summary&);

struct SummaryColumn {
  const char* name;
  std::variant<TextField, CountField, NumberField, Derived> field;
};

SummaryColumn text(const char* name, TextField f) {
  return {name, f};
}
SummaryColumn count(const char* name, CountField f) {
  return {name, f};
}
SummaryColumn number(const char* name, NumberField f) {
  return {name, f};
}
SummaryColumn derived(const char* name, Derived f) {
  return {name, f};
}

// New columns go at the end.
const SummaryColumn kColumns[] = {
    text(
        "policy", [](Summary& s) -> auto& { return s.policy; }),
    count(
        "nb_jobs", [](Summary& s) -> auto& { return s.nb_jobs; }),
    count(
        "nb_jobs_success", [](Summary& s) -> auto& { return s.nb_jobs_success; }),
    count(
        "nb_jobs_killed", [](Summary& s) -> auto& { return s.nb_jobs_killed; }),
    count(
        "nb_jobs_rejected", [](Summary& s) -> auto& { return s.nb_jobs_rejected; }),
    number(
        "makespan", [](Summary& s) -> auto& { return s.makespan; }),
    number(
        "mean_waiting_time", [](Summary& s) -> auto& { return s.mean_waiting_time; }),
    number(
        "max_waiting_time", [](Summary& s) -> auto& { return s.max_waiting_time; }),
    number(
        "mean_turnaround_time", [](Summary& s) -> auto& { return s.mean_turnaround_time; }),
    number(
        "mean_slowdown", [](Summary& s) -> auto& { return s.mean_slowdown; }),
    number(
        "gpu_utilization", [](Summary& s) -> auto& { return s.gpu_utilization; }),
    count(
        "cross_domain_jobs", [](Summary& s) -> auto& { return s.cross_domain_jobs; }),
    number(
        "bw_utilization", [](Summary& s) -> auto& { return s.bw_utilization; }),
    number(
        "bw_efficiency_p10", [](Summary& s) -> auto& { return s.bandwidth.bw_efficiency_p10; }),
    number(
        "bw_efficiency_p50", [](Summary& s) -> auto& { return s.bandwidth.bw_efficiency_p50; }),
    number(
        "bw_efficiency_p90", [](Summary& s) -> auto& { return s.bandwidth.bw_efficiency_p90; }),
    number(
        "cross_domain_gpu_hours", [](Summary& s) -> auto& { return s.bandwidth.cross_domain_gpu_hours; }),
    number(
        "slowdown_gpu_hours", [](Summary& s) -> auto& { return s.bandwidth.slowdown_gpu_hours; }),
    number(
        "nvlink_utilization", [](Summary& s) -> auto& { return s.bandwidth.nvlink_utilization; }),
    number(
        "ib_utilization", [](Summary& s) -> auto& { return s.bandwidth.ib_utilization; }),
    number(
        "stranded_gpu_hours", [](Summary& s) -> auto& { return s.fragmentation.stranded_gpu_hours; }),
    number(
        "fragmentation", [](Summary& s) -> auto& { return s.fragmentation.fragmentation; }),
    number(
        "idle_while_queued_gpu_hours",
        [](Summary& s) -> auto& { return s.fragmentation.idle_while_queued_gpu_hours; }),
    number(
        "fgd_fragmentation", [](Summary& s) -> auto& { return s.fragmentation.fgd_fragmentation; }),
    number(
        "gpu_hour_usd", [](Summary& s) -> auto& { return s.idle.gpu_hour_usd; }),
    number(
        "busy_gpu_hours", [](Summary& s) -> auto& { return s.idle.busy_gpu_hours; }),
    number(
        "idle_gpu_hours", [](Summary& s) -> auto& { return s.idle.idle_gpu_hours; }),
    derived("idle_cost_usd", [](const Summary& s) { return s.idle.idle_cost_usd(); }),
    number(
        "idle_no_demand_gpu_hours", [](Summary& s) -> auto& { return s.idle.idle_no_demand_gpu_hours; }),
    derived("idle_no_demand_cost_usd", [](const Summary& s) { return s.idle.idle_no_demand_cost_usd(); }),
    number(
        "idle_scheduling_gpu_hours", [](Summary& s) -> auto& { return s.idle.idle_scheduling_gpu_hours; }),
    derived("idle_scheduling_cost_usd", [](const Summary& s) { return s.idle.idle_scheduling_cost_usd(); }),
    number(
        "idle_failure_gpu_hours", [](Summary& s) -> auto& { return s.idle.idle_failure_gpu_hours; }),
    derived("idle_failure_cost_usd", [](const Summary& s) { return s.idle.idle_failure_cost_usd(); }),
    number(
        "slowdown_cost_usd", [](Summary& s) -> auto& { return s.slowdown_cost_usd; }),
    count(
        "jobs_killed", [](Summary& s) -> auto& { return s.failures.jobs_killed; }),
    number(
        "down_gpu_hours", [](Summary& s) -> auto& { return s.failures.down_gpu_hours; }),
    number(
        "failure_stranded_gpu_hours",
        [](Summary& s) -> auto& { return s.failures.failure_stranded_gpu_hours; }),
    number(
        "lost_work_gpu_hours", [](Summary& s) -> auto& { return s.failures.lost_work_gpu_hours; }),
    number(
        "goodput", [](Summary& s) -> auto& { return s.failures.goodput; }),
    number(
        "availability", [](Summary& s) -> auto& { return s.failures.availability; }),
    number(
        "cost_per_delivered_gpu_hour_usd",
        [](Summary& s) -> auto& { return s.cost_per_delivered_gpu_hour_usd; }),
    count(
        "rack_failures", [](Summary& s) -> auto& { return s.failures.rack_failures; }),
};

void append_cell(std::string& line, const SummaryColumn& column, const Summary& summary) {
  // The accessors give mutable references so that one serves reading too; writing only looks.
  Summary& s = const_cast<Summary&>(summary);
  std::visit(
      [&](auto field) {
        using Field = decltype(field);
        if constexpr (std::is_same_v<Field, TextField>)
          append_quoted(line, field(s));
        else if constexpr (std::is_same_v<Field, CountField>)
          fmt::format_to(std::back_inserter(line), "{}", field(s));
        else
          append_number(line, field(s));
      },
      column.field);
}

long parse_count(std::string_view cell) {
  const auto count = read_number<long>(cell);
  if (!count) throw std::runtime_error(fmt::format("'{}' is not a count", cell));
  return count.value;
}

void read_cell(Summary& s, const SummaryColumn& column, std::string&& cell) {
  std::visit(
      [&](auto field) {
        using Field = decltype(field);
        if constexpr (std::is_same_v<Field, TextField>)
          field(s) = std::move(cell);
        else if constexpr (std::is_same_v<Field, CountField>)
          field(s) = parse_count(cell);
        else if constexpr (std::is_same_v<Field, NumberField>)
          field(s) = parse_number(cell);
      },
      column.field);
}

}  // namespace

std::string summary_row(const Summary& summary) {
  std::string line;
  for (const SummaryColumn& column : kColumns) {
    if (&column != kColumns) line += ',';
    append_cell(line, column, summary);
  }
  return line;
}

Summary parse_summary_row(std::string_view row) {
  std::vector<std::string> cells = split_row(row);
  if (cells.size() != std::size(kColumns))
    throw std::runtime_error(
        fmt::format("a summary row of {} cells, not {}", cells.size(), std::size(kColumns)));
  Summary s;
  for (std::size_t i = 0; i < cells.size(); ++i) read_cell(s, kColumns[i], std::move(cells[i]));
  return s;
}

void write_summary_csv(std::ostream& out, std::span<const Summary> summaries) {
  std::string text;
  for (const SummaryColumn& column : kColumns) {
    if (!text.empty()) text += ',';
    text += column.name;
  }
  text += '\n';
  for (const Summary& s : summaries) text += summary_row(s) + '\n';
  out << text;
}

}  // namespace nvlsim
