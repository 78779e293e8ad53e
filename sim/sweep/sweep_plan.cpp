#include "sim/sweep/sweep_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/input_error.hpp"
#include "models/read_number.hpp"
#include "sim/sweep/run_id.hpp"

namespace nvlsim {

namespace {

// A cell while it is built: each setting with the line that gave it, for errors.
using Cell = std::map<std::string, GridSetting>;

void set(Cell& cell, const GridSetting& s) {
  cell.insert_or_assign(s.key, s);
}

// The cross product of the axes over `base`, the first axis varying slowest.
std::vector<Cell> cross_product(const Grid& grid, const Cell& base) {
  std::vector<Cell> cells{base};
  for (const GridAxis& axis : grid.axes) {
    std::vector<Cell> next;
    for (const Cell& cell : cells)
      for (const GridSetting& value : axis.values) {
        next.push_back(cell);
        set(next.back(), value);
      }
    cells = std::move(next);
  }
  return cells;
}

[[noreturn]] void fail(const Grid& grid, const GridSetting& at, std::string_view what) {
  throw InputError(fmt::format("{}:{}: {}: {}", grid.file.string(), at.line, at.key, what));
}

// A generated trace or platform replaces the named one: a cell may not give both.
void check_generators(const Grid& grid, const Cell& cell) {
  for (const auto& [prefix, named] : {std::pair{"mix.", "trace"}, std::pair{"platform.", "platform"}}) {
    const auto given = cell.find(named);
    if (given == cell.end()) continue;
    for (const auto& [key, s] : cell)
      if (key.starts_with(prefix))
        fail(grid, s,
             fmt::format("{}* settings generate the {}, and this cell also names one (line {})", prefix,
                         named, given->second.line));
  }
}

// Settings that differ between cells (one a cell lacks counts as differing), axes first, then as the
// explicit cells name them.
std::vector<std::string> varying(const Grid& grid, const std::vector<CellSettings>& cells) {
  std::vector<std::string> order;
  for (const GridAxis& axis : grid.axes) order.push_back(axis.key);
  for (const auto& cell : grid.cells)
    for (const GridSetting& s : cell)
      if (std::ranges::find(order, s.key) == order.end()) order.push_back(s.key);
  std::vector<std::string> out;
  for (const std::string& key : order) {
    const auto value = [&](const CellSettings& c) {
      const auto found = c.find(key);
      return found == c.end() ? std::optional<std::string>() : found->second;
    };
    if (std::ranges::any_of(cells, [&](const CellSettings& c) { return value(c) != value(cells.front()); }))
      out.push_back(key);
  }
  return out;
}

// Settings that run alike: the same keys, each value the same text or the same number (0.2, 0.20, 2e-1).
bool same_settings(const CellSettings& a, const CellSettings& b) {
  return std::ranges::equal(a, b, [](const auto& x, const auto& y) {
    if (x.first != y.first) return false;
    if (x.second == y.second) return true;
    const auto u = read_number<double>(x.second);
    const auto v = read_number<double>(y.second);
    return u && v && u.value == v.value;
  });
}

}  // namespace

SweepPlan make_plan(const Grid& grid, const GridKeys& keys) {
  Cell base;
  for (const GridSetting& s : grid.base) set(base, s);
  std::vector<Cell> cells;
  if (!grid.axes.empty() || grid.cells.empty()) cells = cross_product(grid, base);
  for (const auto& explicit_cell : grid.cells) {
    cells.push_back(base);
    for (const GridSetting& s : explicit_cell) set(cells.back(), s);
  }
  SweepPlan plan;
  plan.grid = std::filesystem::absolute(grid.file).lexically_normal().string();
  plan.policies = grid.policies;
  plan.seeds = grid.seeds;
  for (const Cell& cell : cells) {
    check_generators(grid, cell);
    CellSettings settings;
    for (const auto& [key, s] : cell) settings.emplace(key, s.value);
    const auto same =
        std::ranges::find_if(plan.cells, [&](const CellSettings& c) { return same_settings(c, settings); });
    if (same != plan.cells.end()) {
      const GridSetting& at = cell.empty() ? GridSetting{"cells", "", 1} : cell.begin()->second;
      fail(grid, at,
           fmt::format("cell {} has the same settings as cell {}", plan.cells.size(),
                       same - plan.cells.begin()));
    }
    plan.cells.push_back(std::move(settings));
  }
  plan.varying = varying(grid, plan.cells);
  FileDigests files;
  for (std::size_t c = 0; c < plan.cells.size(); ++c)
    for (const std::uint64_t seed : plan.seeds)
      plan.runs.push_back({c, seed, run_id(run_text(plan.cells[c], plan.policies, seed, keys, files))});
  return plan;
}

}  // namespace nvlsim
