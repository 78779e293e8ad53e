#pragma once
// A CSV file's columns as one list of (name, cell writer), so that its header and its rows cannot drift
// apart; new columns go at the end (docs/output.md).

#include <ostream>
#include <span>
#include <string>

namespace nvlsim {

template <class Row>
struct CsvColumn {
  const char* name;
  void (*cell)(std::string& line, const Row& row);  // appends the cell's text
};

template <class Row>
void write_header(std::ostream& out, std::span<const CsvColumn<Row>> columns) {
  std::string line;
  for (const auto& column : columns) {
    if (!line.empty()) line += ',';
    line += column.name;
  }
  out << line << '\n';
}

// Appends the row's line, newline included, to `line`.
template <class Row>
void append_row(std::string& line, std::span<const CsvColumn<Row>> columns, const Row& row) {
  bool first = true;
  for (const auto& column : columns) {
    if (!first) line += ',';
    first = false;
    column.cell(line, row);
  }
  line += '\n';
}

}  // namespace nvlsim
