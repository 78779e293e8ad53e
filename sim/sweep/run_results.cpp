#include "sim/sweep/run_results.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "analysis/csv_text.hpp"
#include "analysis/summary_csv.hpp"
#include "models/input_error.hpp"
#include "sim/sweep/plan_file.hpp"

namespace nvlsim {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> summary_columns() {
  std::ostringstream header;
  write_summary_csv(header, {});
  std::string line = header.str();
  line.pop_back();  // the newline
  return split_row(line);
}

std::vector<SummaryLine> read_summary(const fs::path& file, const std::vector<std::string>& columns) {
  std::ifstream in(file);
  if (!in) throw InputError(fmt::format("{}: cannot open (the run is marked finished)", file.string()));
  std::vector<SummaryLine> lines;
  std::string text;
  int number = 0;
  while (std::getline(in, text)) {
    ++number;
    try {
      const std::vector<std::string> cells = split_row(text);
      if (number == 1) {
        if (cells != columns)
          throw std::runtime_error(
              "not the columns of this nvlsim's summary.csv (a run of another version?)");
        continue;
      }
      if (cells.size() != columns.size())
        throw std::runtime_error(fmt::format("expected {} cells, got {}", columns.size(), cells.size()));
      SummaryLine line{cells, {}};
      for (std::size_t c = 1; c < cells.size(); ++c) line.numbers.push_back(parse_number(cells[c]));
      lines.push_back(std::move(line));
    } catch (const std::runtime_error& e) {
      throw InputError(fmt::format("{}:{}: {}", file.string(), number, e.what()));
    }
  }
  if (number == 0) throw InputError(fmt::format("{}:1: empty", file.string()));
  return lines;
}

}  // namespace

SweepResults read_results(const fs::path& dir, const SweepPlan& plan) {
  SweepResults results{summary_columns(), {}, {}};
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    if (!run_finished(dir, plan.runs[i])) {
      results.unfinished.push_back(i);
      continue;
    }
    results.finished.push_back(
        {i, read_summary(run_dir(dir, plan.runs[i]) / "summary.csv", results.columns)});
  }
  return results;
}

}  // namespace nvlsim
