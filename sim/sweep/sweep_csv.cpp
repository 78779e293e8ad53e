#include "sim/sweep/sweep_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/csv_text.hpp"
#include "analysis/seed_statistics.hpp"

namespace nvlsim {

namespace {

constexpr const char* kBaseline = "per-gpu";

void append_header(std::string& line, std::span<const std::string> names) {
  for (const std::string& name : names) {
    if (!line.empty()) line += ',';
    append_quoted(line, name);
  }
}

// ",VALUE..." of the settings that vary: empty where the cell does not set one.
void append_settings(std::string& line, const SweepPlan& plan, std::size_t cell) {
  for (const std::string& key : plan.varying) {
    line += ',';
    const auto value = plan.cells[cell].find(key);
    if (value != plan.cells[cell].end()) append_quoted(line, value->second);
  }
}

void append_statistics(std::string& line, const SampleStatistics& s) {
  for (const double v : {s.mean, s.sd, s.ci95_low, s.ci95_high}) {
    line += ',';
    append_number(line, v);
  }
}

const SummaryLine* line_of(const RunResult& run, const std::string& policy) {
  const auto found =
      std::ranges::find_if(run.lines, [&](const SummaryLine& l) { return l.cells[0] == policy; });
  return found == run.lines.end() ? nullptr : &*found;
}

// The finished runs of each cell, in seed order.
std::vector<std::vector<const RunResult*>> runs_by_cell(const SweepPlan& plan, const SweepResults& results) {
  std::vector<std::vector<const RunResult*>> by_cell(plan.cells.size());
  for (const RunResult& r : results.finished) by_cell[plan.runs[r.run].cell].push_back(&r);
  return by_cell;
}

}  // namespace

void write_sweep_csv(std::ostream& out, const SweepPlan& plan, const SweepResults& results) {
  std::string line = "cell,run,seed";
  append_header(line, plan.varying);
  append_header(line, results.columns);
  out << line << '\n';
  for (const RunResult& r : results.finished) {
    const SweepRun& run = plan.runs[r.run];
    std::string prefix = fmt::format("{},{},{}", run.cell, run.id, run.seed);
    append_settings(prefix, plan, run.cell);
    for (const SummaryLine& summary : r.lines) {
      line = prefix;
      for (const std::string& cell : summary.cells) {
        line += ',';
        append_quoted(line, cell);
      }
      out << line << '\n';
    }
  }
}

void write_sweep_summary_csv(std::ostream& out, const SweepPlan& plan, const SweepResults& results) {
  std::string line = "cell";
  append_header(line, plan.varying);
  line +=
      ",policy,metric,n,mean,sd,ci95_low,ci95_high,vs_per_gpu_mean,vs_per_gpu_ci95_low,vs_per_gpu_ci95_high";
  out << line << '\n';
  const auto by_cell = runs_by_cell(plan, results);
  for (std::size_t cell = 0; cell < plan.cells.size(); ++cell) {
    std::vector<std::string> policies;  // as the cell's runs list them
    for (const RunResult* run : by_cell[cell])
      for (const SummaryLine& l : run->lines)
        if (std::ranges::find(policies, l.cells[0]) == policies.end()) policies.push_back(l.cells[0]);
    for (const std::string& policy : policies)
      for (std::size_t m = 0; m + 1 < results.columns.size(); ++m) {
        std::vector<double> values, differences;
        for (const RunResult* run : by_cell[cell]) {
          const SummaryLine* mine = line_of(*run, policy);
          if (mine == nullptr || std::isnan(mine->numbers[m])) continue;
          values.push_back(mine->numbers[m]);
          // Paired: the baseline of the same run, so of the same seed.
          const SummaryLine* base = line_of(*run, kBaseline);
          if (base != nullptr && !std::isnan(base->numbers[m]))
            differences.push_back(mine->numbers[m] - base->numbers[m]);
        }
        line = std::to_string(cell);
        append_settings(line, plan, cell);
        line += ',';
        append_quoted(line, policy);
        line += ',';
        append_quoted(line, results.columns[m + 1]);
        const SampleStatistics s = sample_statistics(values);
        line += fmt::format(",{}", s.n);
        append_statistics(line, s);
        const SampleStatistics d = sample_statistics(differences);
        for (const double v : {d.mean, d.ci95_low, d.ci95_high}) {
          line += ',';
          append_number(line, v);
        }
        out << line << '\n';
      }
  }
}

}  // namespace nvlsim
