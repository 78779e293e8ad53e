#include "models/failure_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <string>
#include <string_view>

#include "models/input_error.hpp"

namespace nvlsim {

namespace {

constexpr std::string_view kHeader = "time,component,id,duration";
constexpr std::string_view kFields[] = {"time", "component", "id", "duration"};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

template <typename T>
bool parse_number(std::string_view text, T& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && end == text.data() + text.size();
}

}  // namespace

std::vector<FailureEvent> read_failure_replay(const std::filesystem::path& path, const ClusterShape& shape,
                                              int switches) {
  const std::string file = path.string();
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open", file));
  std::vector<FailureEvent> events;
  std::string line;
  int number = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++number;
    const std::string_view text = trim(line);
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
    if (!parse_number(fields[0], e.time) || !std::isfinite(e.time) || e.time < 0)
      throw bad(0, fmt::format("expected seconds >= 0, got \"{}\"", fields[0]));
    const auto component = parse_component(fields[1]);
    if (!component)
      throw bad(1, fmt::format("expected gpu, tray, nvswitch, nvlink, nic or rack, got \"{}\"", fields[1]));
    e.component = *component;
    const int limit = component_count(e.component, shape, switches);
    if (!parse_number(fields[2], e.id) || e.id < 0 || e.id >= limit)
      throw bad(2, fmt::format("expected a {} id from 0 to {}, got \"{}\"", fields[1], limit - 1, fields[2]));
    if (!parse_number(fields[3], e.duration) || !std::isfinite(e.duration) || e.duration <= 0)
      throw bad(3, fmt::format("expected seconds > 0, got \"{}\"", fields[3]));
    events.push_back(e);
  }
  if (!header) throw InputError(fmt::format("{}: empty; expected the header \"{}\"", file, kHeader));
  std::stable_sort(events.begin(), events.end(),
                   [](const FailureEvent& a, const FailureEvent& b) { return a.time < b.time; });
  return events;
}

}  // namespace nvlsim
