#include "models/failure_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <string_view>

#include "models/input_error.hpp"
#include "models/line_reader.hpp"
#include "models/read_number.hpp"

namespace nvlsim {

namespace {

constexpr std::string_view kHeader = "time,component,id,duration";
// Longest line read: a clear error, not a file without line breaks read into memory whole.
constexpr std::size_t kMaxLineBytes = 4096;
// Times and durations up to 1e12 s (31,700 years): beyond any run, and sums of them stay exact to 1 ms.
constexpr double kMaxSeconds = 1e12;
constexpr std::string_view kFields[] = {"time", "component", "id", "duration"};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<FailureEvent> read_failure_replay(const std::filesystem::path& path, const ClusterShape& shape,
                                              int switches) {
  const std::string file = path.string();
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    throw InputError(fmt::format("{}: is a folder, expected a CSV file", file));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open", file));
  std::vector<FailureEvent> events;
  std::string line;
  int number = 0;
  bool header = false;
  for (LineRead got; (got = read_line(*in.rdbuf(), line, kMaxLineBytes)) != LineRead::end;) {
    ++number;
    if (got == LineRead::too_long)
      throw InputError(fmt::format("{}:{}: line longer than {} bytes", file, number, kMaxLineBytes));
    const std::string_view text = trim(number == 1 ? without_byte_order_mark(line) : line);
    if (text.empty() || text.front() == '#') continue;
    if (!header) {
      std::string compact;
      for (char ch : text)
        if (ch != ' ' && ch != '\t') compact += ch;
      if (compact != kHeader)
        throw InputError(fmt::format("{}:{}: expected the header \"{}\"", file, number, kHeader));
      header = true;
      continue;
    }
    std::vector<std::string_view> fields;
    for (std::size_t from = 0;;) {
      const auto comma = text.find(',', from);
      fields.push_back(trim(text.substr(from, comma - from)));
      if (comma == std::string_view::npos) break;
      from = comma + 1;
    }
    if (fields.size() != 4)
      throw InputError(fmt::format("{}:{}: expected 4 comma-separated fields ({})", file, number, kHeader));
    const auto bad = [&](int field, std::string_view what) {
      return InputError(
          fmt::format("{}:{}: field {} ({}): {}", file, number, field + 1, kFields[field], what));
    };
    FailureEvent e;
    const auto time = read_number<double>(fields[0]);
    if (!time || time.value < 0 || time.value > kMaxSeconds)
      throw bad(0, fmt::format("expected seconds in [0, {}], got \"{}\"", kMaxSeconds, fields[0]));
    e.time = time.value;
    const auto component = parse_component(fields[1]);
    if (!component)
      throw bad(1, fmt::format("expected gpu, tray, nvswitch, nvlink, nic or rack, got \"{}\"", fields[1]));
    e.component = *component;
    const int limit = component_count(e.component, shape, switches);
    const auto id = read_number<int>(fields[2]);
    if (!id || id.value < 0 || id.value >= limit)
      throw bad(2, fmt::format("expected a {} id from 0 to {}, got \"{}\"", fields[1], limit - 1, fields[2]));
    e.id = id.value;
    const auto duration = read_number<double>(fields[3]);
    if (!duration || duration.value <= 0 || duration.value > kMaxSeconds)
      throw bad(3, fmt::format("expected seconds > 0 and <= {}, got \"{}\"", kMaxSeconds, fields[3]));
    e.duration = duration.value;
    events.push_back(e);
  }
  if (!header) throw InputError(fmt::format("{}: empty; expected the header \"{}\"", file, kHeader));
  // As a trace without jobs: a replay that lists nothing is more likely the wrong file than a wish.
  if (events.empty())
    throw InputError(
        fmt::format("{}: no failures after the header (leave --failures out for a run without "
                    "failures)",
                    file));
  std::stable_sort(events.begin(), events.end(),
                   [](const FailureEvent& a, const FailureEvent& b) { return a.time < b.time; });
  return events;
}

}  // namespace nvlsim
