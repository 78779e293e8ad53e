#include "workloads/csv_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "models/input_error.hpp"
#include "models/line_reader.hpp"
#include "models/read_number.hpp"

namespace nvlsim {

namespace {

template <class T>
std::optional<T> whole_number(std::string_view text) {
  const auto number = read_number<T>(text);
  return number ? std::optional<T>(number.value) : std::nullopt;
}

}  // namespace

std::optional<std::vector<std::string>> split_csv_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return cells;
}

std::optional<std::int64_t> parse_timestamp(std::string_view text) {
  if (auto seconds = whole_number<std::int64_t>(text)) {
    if (*seconds < -kMaxTraceSeconds || *seconds > kMaxTraceSeconds) return std::nullopt;
    return seconds;
  }
  // YYYY-MM-DD HH:MM:SS: fixed positions.
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' || (text[10] != ' ' && text[10] != 'T') ||
      text[13] != ':' || text[16] != ':')
    return std::nullopt;
  const auto y = whole_number<std::int64_t>(text.substr(0, 4));
  const auto mo = whole_number<unsigned>(text.substr(5, 2));
  const auto d = whole_number<unsigned>(text.substr(8, 2));
  const auto h = whole_number<unsigned>(text.substr(11, 2));
  const auto mi = whole_number<unsigned>(text.substr(14, 2));
  const auto s = whole_number<unsigned>(text.substr(17, 2));
  if (!y || !mo || !d || !h || !mi || !s || *h > 23 || *mi > 59 || *s > 60) return std::nullopt;
  // A real calendar date (no 31 April, 29 February only in leap years), counted in days from 1970-01-01.
  const std::chrono::year_month_day date{std::chrono::year(static_cast<int>(*y)), std::chrono::month(*mo),
                                         std::chrono::day(*d)};
  if (!date.ok()) return std::nullopt;
  const std::int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  return days * 86400 + *h * 3600 + *mi * 60 + *s;
}

CsvRows::CsvRows(const std::filesystem::path& path, std::vector<std::string> required)
    : name_(path.string()), source_(path), required_(std::move(required)) {
  const auto header = source_.next();
  line_ = 1;
  if (!header) throw InputError(fmt::format("{}: empty file, expected a header row", name_));
  // A UTF-8 byte order mark (spreadsheet exports) would otherwise hide inside the first column's name.
  const std::string_view text = without_byte_order_mark(*header);
  const std::vector<std::string> names = cells_of(text, 1);
  columns_ = names.size();
  for (const std::string& want : required_) {
    const auto found = std::ranges::find(names, want);
    if (found == names.end()) throw InputError(fmt::format("{}:1: missing column \"{}\"", name_, want));
    index_.push_back(static_cast<std::size_t>(found - names.begin()));
  }
}

std::vector<std::string> CsvRows::cells_of(std::string_view text, std::size_t line) const {
  auto cells = split_csv_line(text);
  if (!cells) throw InputError(fmt::format("{}:{}: a quoted field does not end", name_, line));
  return std::move(*cells);
}

bool CsvRows::next() {
  while (const auto text = source_.next()) {
    ++line_;
    if (text->empty() || *text == "\r") continue;
    cells_ = cells_of(*text, line_);
    if (cells_.size() != columns_)
      throw InputError(fmt::format("{}:{}: expected {} fields as in the header, got {}", name_, line_,
                                   columns_, cells_.size()));
    return true;
  }
  return false;
}

void CsvRows::fail(std::size_t column, std::string_view what) const {
  throw InputError(
      fmt::format("{}:{}: field {} ({}): {}", name_, line_, index_[column] + 1, required_[column], what));
}

std::optional<std::int64_t> CsvRows::integer(std::size_t column) const {
  const std::string_view text = cell(column);
  if (text.empty()) return std::nullopt;
  const auto value = whole_number<std::int64_t>(text);
  if (!value) fail(column, fmt::format("expected an integer, got \"{}\"", text));
  return value;
}

std::optional<std::int64_t> CsvRows::integer(std::size_t column, std::int64_t low, std::int64_t high) const {
  const auto value = integer(column);
  if (value && (*value < low || *value > high))
    fail(column, fmt::format("must be in [{}, {}], got \"{}\"", low, high, cell(column)));
  return value;
}

std::optional<std::int64_t> CsvRows::time(std::size_t column) const {
  const std::string_view text = cell(column);
  if (text.empty() || text == "None" || text == "NaT") return std::nullopt;
  const auto value = parse_timestamp(text);
  if (!value)
    fail(column, fmt::format("expected a time (YYYY-MM-DD HH:MM:SS, or seconds within {}), got \"{}\"",
                             kMaxTraceSeconds, text));
  return value;
}

}  // namespace nvlsim
