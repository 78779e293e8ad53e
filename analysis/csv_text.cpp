#include "analysis/csv_text.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/read_number.hpp"
#include "workloads/csv_rows.hpp"

namespace nvlsim {

void append_number(std::string& line, double v) {
  if (!std::isfinite(v)) return;
  // Whole numbers (times in seconds, counts) are most cells. Below 1e15 fmt's shortest form of one is its
  // digits, which integer formatting writes several times faster; -0 keeps its sign through fmt.
  if (std::abs(v) < 1e15 && v == std::trunc(v) && !(v == 0 && std::signbit(v))) {
    append_integer(line, static_cast<long long>(v));
    return;
  }
  // The shortest form of a double has at most 24 characters ("-1.7976931348623157e+308"). Compiled
  // formatting into a buffer writes it a third faster than parsing the format at every cell.
  char text[32];
  line.append(text, fmt::format_to(text, FMT_COMPILE("{}"), v));
}

void append_integer(std::string& line, long long v) {
  char digits[24];
  line.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
}

std::string num(double v) {
  std::string text;
  append_number(text, v);
  return text;
}

void append_quoted(std::string& line, std::string_view text) {
  if (text.find_first_of(",\"\n") == std::string_view::npos) {
    line += text;
    return;
  }
  line += '"';
  for (char c : text) {
    if (c == '"') line += '"';
    line += c;
  }
  line += '"';
}

std::vector<std::string> split_row(std::string_view line) {
  auto cells = split_csv_line(line);
  if (!cells) throw std::runtime_error("a quoted cell does not end");
  return std::move(*cells);
}

double parse_number(std::string_view cell) {
  if (cell.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto number = read_number<double>(cell);
  if (!number) throw std::runtime_error(fmt::format("'{}' is not a number", cell));
  return number.value;
}

}  // namespace nvlsim
