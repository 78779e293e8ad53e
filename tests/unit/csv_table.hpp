#pragma once
// Reads the CSV files nvlsim writes, for tests: header-indexed rows of strings.

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace nvlsim::test {

struct CsvTable {
  std::map<std::string, std::size_t> column;
  std::vector<std::vector<std::string>> rows;

  const std::string& at(std::size_t row, const std::string& name) const {
    return rows.at(row).at(column.at(name));
  }
  double num(std::size_t row, const std::string& name) const { return std::stod(at(row, name)); }
};

inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

inline CsvTable read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  CsvTable t;
  std::string line;
  std::getline(in, line);
  const auto header = split_csv_line(line);
  for (std::size_t i = 0; i < header.size(); ++i) t.column[header[i]] = i;
  while (std::getline(in, line)) {
    t.rows.push_back(split_csv_line(line));
    if (t.rows.back().size() != header.size())
      throw std::runtime_error("ragged row in " + path + ": " + line);
  }
  return t;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace nvlsim::test
