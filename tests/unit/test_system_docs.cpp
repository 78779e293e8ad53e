// docs/systems.md is hand-written; this keeps its tables to models/system_catalog.cpp: every system,
// every figure with its value and source, and the overview's derived columns.

#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/cost_model.hpp"
#include "models/system_catalog.hpp"

using nvlsim::SystemFacts;

namespace {

using Row = std::vector<std::string>;  // a table row's cells, trimmed

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(' ');
  return first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(' ') - first + 1);
}

Row cells(const std::string& line) {
  Row row;
  std::stringstream in(line.substr(1));
  for (std::string cell; std::getline(in, cell, '|');) row.push_back(trimmed(cell));
  return row;
}

// "3,000,000" and "1,800" as numbers; "—" and "no" as 0, "yes" as 1.
double number(std::string text) {
  std::erase(text, ',');
  if (text == "yes") return 1;
  return text == "—" || text == "no" ? 0 : std::stod(text);
}

std::vector<std::string> lines_of_docs() {
  std::ifstream in(NVLSIM_SOURCE_DIR "/docs/systems.md");
  REQUIRE(in);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The rows "| `key` | value | unit | source |" of the section "### `NAME`: ...", by key.
std::map<std::string, Row> figure_rows(const std::vector<std::string>& lines, std::string_view system) {
  std::map<std::string, Row> rows;
  bool inside = false;
  for (const std::string& line : lines) {
    if (line.starts_with("#")) inside = line.starts_with("### `" + std::string(system) + "`: ");
    if (!inside || !line.starts_with("| `")) continue;
    Row row = cells(line);
    REQUIRE(row.size() == 4);
    std::erase(row[0], '`');
    rows[row[0]] = row;
  }
  return rows;
}

// The overview row "| `NAME` | ..." of the section "## The systems at a glance".
Row overview_row(const std::vector<std::string>& lines, std::string_view system) {
  for (const std::string& line : lines)
    if (line.starts_with("| `" + std::string(system) + "` |")) return cells(line);
  return {};
}

struct Figure {
  const char* key;
  double scale;  // the docs' unit in the catalogue's (GB/s in bytes/s)
  std::function<double(const SystemFacts&)> value;
  std::function<std::string_view(const SystemFacts&)> source;
};

template <class T>
Figure figure(const char* key, double scale, nvlsim::Sourced<T> SystemFacts::*member) {
  return {key, scale, [member](const SystemFacts& s) { return double((s.*member).value); },
          [member](const SystemFacts& s) { return (s.*member).source; }};
}

const std::vector<Figure> kFigures = {
    figure("gpus_per_tray", 1, &SystemFacts::gpus_per_tray),
    figure("trays_per_domain", 1, &SystemFacts::trays_per_domain),
    figure("racks_per_domain", 1, &SystemFacts::racks_per_domain),
    figure("zones_per_domain", 1, &SystemFacts::zones_per_domain),
    figure("nvlink_links_per_gpu", 1, &SystemFacts::nvlink_links_per_gpu),
    figure("nvlink_link_bw", 1e9, &SystemFacts::nvlink_link_bw),
    figure("inter_zone_bw", 1e9, &SystemFacts::inter_zone_bw),
    figure("nic_bw", 1e9, &SystemFacts::nic_bw),
    figure("rack_power_kw", 1, &SystemFacts::rack_power_kw),
    figure("rack_price_usd", 1, &SystemFacts::rack_price_usd),
    figure("partial_operation", 1, &SystemFacts::partial_operation),
};

}  // namespace

TEST_CASE("docs/systems.md prints every system's figures with the catalogue's values and sources",
          "[systems][docs]") {
  const auto lines = lines_of_docs();
  for (const SystemFacts& s : nvlsim::systems()) {
    INFO(s.name);
    const auto rows = figure_rows(lines, s.name);
    CHECK(rows.size() == kFigures.size());
    for (const Figure& f : kFigures) {
      INFO(f.key);
      REQUIRE(rows.contains(f.key));
      const Row& row = rows.at(f.key);
      CHECK(number(row[1]) * f.scale == Approx(f.value(s)));
      CHECK(row[3] == f.source(s));
    }
  }
}

TEST_CASE("docs/systems.md's overview derives its columns from the catalogue", "[systems][docs]") {
  const auto lines = lines_of_docs();
  for (const SystemFacts& s : nvlsim::systems()) {
    INFO(s.name);
    const Row row = overview_row(lines, s.name);
    REQUIRE(row.size() == 10);
    CHECK(number(row[1]) == s.gpus_per_domain());
    CHECK(number(row[2]) == s.racks_per_domain.value);
    CHECK(number(row[3]) == s.zones_per_domain.value);
    CHECK(number(row[4]) * 1e9 == Approx(s.nvlink_gpu_bw()));
    CHECK(number(row[5]) * 1e9 == Approx(s.inter_zone_bw.value));
    CHECK(number(row[6]) * 1e9 == Approx(s.nic_bw.value));
    CHECK(number(row[7]) == s.rack_power_kw.value);
    CHECK(number(row[8]) == s.rack_price_usd.value);
    const double owner = nvlsim::gpu_hour_usd(nvlsim::system_cost({}, s, {}), s.gpus_per_rack());
    CHECK(number(row[9]) == Approx(owner).margin(0.00005));
  }
}
