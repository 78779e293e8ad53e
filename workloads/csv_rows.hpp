#pragma once
// Reads a CSV file with a header row (plain or gzip) and looks values up by column name, with messages
// that name the file, line and field (the column's 1-based position and its name).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/line_source.hpp"

namespace nvlsim {

class CsvRows {
 public:
  // Reads the header row; throws InputError "FILE:1: missing column \"NAME\"" for each required column
  // it lacks.
  CsvRows(const std::filesystem::path& path, std::vector<std::string> required);

  // Moves to the next non-empty row; false at the end. Throws InputError "FILE:LINE: expected N fields".
  bool next();

  std::size_t line() const { return line_; }
  // The cell of a required column (by its index in `required`), unquoted.
  std::string_view cell(std::size_t column) const { return cells_[index_[column]]; }
  // Integer cell; nullopt when empty. Throws InputError "FILE:LINE: field N (NAME): expected an integer".
  std::optional<std::int64_t> integer(std::size_t column) const;
  // The same, and in [low, high]: "FILE:LINE: field N (NAME): must be in [low, high], got TEXT".
  std::optional<std::int64_t> integer(std::size_t column, std::int64_t low, std::int64_t high) const;
  // Calendar time "YYYY-MM-DD HH:MM:SS" (UTC) or Unix seconds; nullopt when empty or "None".
  std::optional<std::int64_t> time(std::size_t column) const;
  [[noreturn]] void fail(std::size_t column, std::string_view what) const;

 private:
  // Throws InputError "FILE:LINE: a quoted field does not end".
  std::vector<std::string> cells_of(std::string_view text, std::size_t line) const;

  std::string name_;
  LineSource source_;
  std::vector<std::string> required_;
  std::vector<std::size_t> index_;  // column index of each required name
  std::size_t columns_ = 0;
  std::size_t line_ = 0;
  std::vector<std::string> cells_;
};

// The cells of one CSV line, unquoted: quoted cells may hold commas and doubled quotes (not line breaks); a
// CR at the end is dropped. nullopt when a quote does not close.
std::optional<std::vector<std::string>> split_csv_line(std::string_view line);

// Times the converters accept, in s from 1970 (or from a trace's start): within 1e15 s (31 million years)
// every difference of two times fits SWF's double fields exactly, and no sum or difference overflows.
inline constexpr std::int64_t kMaxTraceSeconds = 1'000'000'000'000'000;

// Seconds since 1970-01-01 00:00:00 UTC of "YYYY-MM-DD HH:MM:SS" (or with 'T'; a real calendar date), or of a
// plain integer within kMaxTraceSeconds of 0; nullopt when the text is neither.
std::optional<std::int64_t> parse_timestamp(std::string_view text);

}  // namespace nvlsim
