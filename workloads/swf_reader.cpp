#include "workloads/swf_reader.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <variant>

#include <fmt/core.h>

#include "models/input_error.hpp"
#include "models/line_reader.hpp"
#include "models/read_number.hpp"
#include "workloads/line_source.hpp"

namespace nvlsim {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::string_view trim_left(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  return text;
}

std::string_view trim(std::string_view text) {
  text = trim_left(text);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

// A comment (the text after ';') that reads "Key: value". The key is one word and its ':' is followed by
// a space or the end of the line, so continuation lines holding URLs ("; http://...") are not entries.
std::optional<std::pair<std::string, std::string>> header_entry(std::string_view comment) {
  comment = trim_left(comment);
  const auto key_end =
      std::find_if(comment.begin(), comment.end(), [](char c) { return c == ':' || is_space(c); });
  if (key_end == comment.begin() || key_end == comment.end() || *key_end != ':') return std::nullopt;
  const std::string_view key(comment.begin(), key_end);
  const std::string_view value = comment.substr(key.size() + 1);
  if (!value.empty() && !is_space(value.front())) return std::nullopt;
  return std::pair{std::string(key), std::string(trim(value))};
}

using IntegerMember = std::int64_t SwfRecord::*;
using RealMember = double SwfRecord::*;

// Where each field goes, index 0 = field 1 (the order of kSwfFieldNames).
constexpr std::array<std::variant<IntegerMember, RealMember>, kSwfFieldCount> kMembers = {
    &SwfRecord::job_number,
    &SwfRecord::submit_time,
    &SwfRecord::wait_time,
    &SwfRecord::run_time,
    &SwfRecord::allocated_processors,
    &SwfRecord::average_cpu_time,
    &SwfRecord::used_memory,
    &SwfRecord::requested_processors,
    &SwfRecord::requested_time,
    &SwfRecord::requested_memory,
    &SwfRecord::status,
    &SwfRecord::user_id,
    &SwfRecord::group_id,
    &SwfRecord::executable_number,
    &SwfRecord::queue_number,
    &SwfRecord::partition_number,
    &SwfRecord::preceding_job,
    &SwfRecord::think_time};

constexpr std::size_t kSubmitTimeIndex = 1;
constexpr std::size_t kTimeIndices[] = {1, 2, 3, 5, 8, 17};  // fields 2, 3, 4, 6, 9 and 18, in seconds

// Parses the whole token into `value`; returns what is wrong with it, or "" when it is fine.
template <class Number>
std::string parse_field(std::string_view token, Number& value) {
  const auto number = read_number<Number>(token);
  if (number.error == NumberError::out_of_range) return fmt::format("out of range, got \"{}\"", token);
  if (!number) {
    const char* expected = std::is_integral_v<Number> ? "an integer" : "a number";
    return fmt::format("expected {}, got \"{}\"", expected, token);
  }
  value = number.value;
  // -1 is the format's "unknown"; no field has a meaningful negative value.
  if (value < 0 && value != -1) return fmt::format("must be >= 0, or -1 for unknown, got \"{}\"", token);
  return {};
}

std::string field_error(std::size_t index, std::string_view what) {
  return fmt::format("field {} ({}): {}", index + 1, kSwfFieldNames[index], what);
}

std::string gpu_milli_error(std::string_view what) {
  return fmt::format("field {} ({}): {}", kGpuMilliField, kGpuMilliFieldName, what);
}

// Field 19: -1 (whole GPUs) or 1-1000 thousandths of one GPU. Returns what is wrong, or "" when fine.
std::string parse_gpu_milli(std::string_view token, std::int64_t& value) {
  const auto number = read_number<std::int64_t>(token);
  const bool integer = number || number.error == NumberError::out_of_range;
  if (!integer) return fmt::format("expected an integer, got \"{}\"", token);
  value = number.value;
  if (!number || (value != -1 && (value < 1 || value > kWholeGpuMilli)))
    return fmt::format("must be 1 to {} (thousandths of one GPU), or -1 for whole GPUs, got \"{}\"",
                       kWholeGpuMilli, token);
  return {};
}

constexpr std::size_t kAllocatedIndex = 4;
constexpr std::size_t kRequestedIndex = 7;

// Part of a GPU is part of one GPU: the job's processors (allocated, or requested when allocated is
// unknown, as jobs_from_swf counts its GPUs) must be 1. Returns what is wrong, or "".
std::string check_one_gpu(const SwfRecord& record) {
  const bool allocated_known = record.allocated_processors != -1;
  const std::int64_t procs = allocated_known ? record.allocated_processors : record.requested_processors;
  if (procs == 1) return {};
  const std::size_t index = allocated_known ? kAllocatedIndex : kRequestedIndex;
  return gpu_milli_error(fmt::format("part of a GPU needs a job of 1 processor, field {} ({}) is {}",
                                     index + 1, kSwfFieldNames[index], procs));
}

// Parses a job line of 18 fields, or 19 `with_gpu_milli`, into `record`; returns what is wrong with the
// line, or "" when it is fine. A wrong field count names no field, since no single field is at fault:
// "expected 18 fields, got 17".
std::string parse_record(std::string_view line, bool with_gpu_milli, SwfRecord& record) {
  std::array<std::string_view, kSwfFieldCount + 1> tokens;
  const std::size_t expected = with_gpu_milli ? kSwfFieldCount + 1 : kSwfFieldCount;
  std::size_t count = 0;
  for (std::size_t i = 0;;) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size()) break;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (count < tokens.size()) tokens[count] = line.substr(start, i - start);
    ++count;
  }
  if (count != expected) return fmt::format("expected {} fields, got {}", expected, count);

  for (std::size_t index = 0; index < kSwfFieldCount; ++index) {
    std::string what =
        std::visit([&](auto member) { return parse_field(tokens[index], record.*member); }, kMembers[index]);
    if (!what.empty()) return field_error(index, what);
  }
  for (const std::size_t index : kTimeIndices) {
    if (record.*std::get<RealMember>(kMembers[index]) > kMaxSwfSeconds)
      return field_error(index,
                         fmt::format("must be at most {:g} s, got \"{}\"", kMaxSwfSeconds, tokens[index]));
  }
  if (with_gpu_milli) {
    const std::string what = parse_gpu_milli(tokens[kSwfFieldCount], record.gpu_milli);
    if (!what.empty()) return gpu_milli_error(what);
  }
  if (record.submit_time == -1) {
    return field_error(kSubmitTimeIndex, "unknown (-1), but a job cannot be replayed without it");
  }
  if (record.gpu_milli != -1) return check_one_gpu(record);
  return {};
}

// Where field 19 is declared and where job lines begin (0: not yet), for the declaration's checks.
struct FieldDeclaration {
  std::size_t gpu_milli_line = 0;
  std::size_t first_job_line = 0;
};

// A "; Field19: ..." entry on line `number`: it must name gpu_milli, once, before any job line, since the
// lines above it were read as 18 fields. Always throws when wrong: skipping it would make every job line
// after it bad.
void declare_gpu_milli(std::string_view name, std::size_t number, std::string_view value,
                       FieldDeclaration& declared) {
  const auto fail = [&](const std::string& what) {
    throw InputError(fmt::format("{}:{}: header {}: {}", name, number, kGpuMilliHeaderKey, what));
  };
  if (value != kGpuMilliFieldName)
    fail(fmt::format("expected {} (thousandths of one GPU), got \"{}\"", kGpuMilliFieldName, value));
  if (declared.gpu_milli_line != 0) fail(fmt::format("already declared on line {}", declared.gpu_milli_line));
  if (declared.first_job_line != 0)
    fail(fmt::format("must come before the first job line (line {})", declared.first_job_line));
  declared.gpu_milli_line = number;
}

// Growing vectors of 152-byte records costs more (copies, page faults) than parsing a large trace, so
// reserve from the text's size: job lines in real logs run 60-100 bytes.
void reserve_records(SwfTrace& trace, std::uint64_t size_hint) {
  constexpr std::uint64_t kBytesPerLine = 64;
  constexpr std::uint64_t kMaxReserved = std::uint64_t{1} << 20;  // so a bogus gzip trailer costs little
  const auto records = static_cast<std::size_t>(std::min(size_hint / kBytesPerLine, kMaxReserved));
  trace.records.reserve(records);
  trace.record_lines.reserve(records);
}

// Reads every line that next_line() yields (std::optional<std::string_view>, nullopt at the end).
template <class NextLine>
SwfTrace parse_lines(std::string_view name, SwfReadOptions options, std::uint64_t size_hint,
                     NextLine next_line) {
  SwfTrace trace;
  trace.path = std::string(name);
  reserve_records(trace, size_hint);
  FieldDeclaration declared;
  while (const std::optional<std::string_view> line = next_line()) {
    const std::size_t number = ++trace.lines_read;
    const std::string_view text = trim_left(number == 1 ? without_byte_order_mark(*line) : *line);
    if (text.empty()) continue;
    if (text.front() == ';') {
      if (auto entry = header_entry(text.substr(1))) {
        if (entry->first == kGpuMilliHeaderKey) declare_gpu_milli(name, number, entry->second, declared);
        trace.header.entries.push_back(std::move(*entry));
      }
      continue;
    }
    if (declared.first_job_line == 0) declared.first_job_line = number;
    SwfRecord record;
    const std::string what = parse_record(text, declared.gpu_milli_line != 0, record);
    if (what.empty()) {
      trace.records.push_back(record);
      trace.record_lines.push_back(number);
      continue;
    }
    std::string message = fmt::format("{}:{}: {}", name, number, what);
    if (!options.skip_bad_lines) throw InputError(message);
    trace.skipped.push_back({number, std::move(message)});
  }
  return trace;
}

}  // namespace

std::optional<std::string> SwfHeader::get(std::string_view key) const {
  const auto found =
      std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first == key; });
  if (found == entries.end()) return std::nullopt;
  return found->second;
}

SwfTrace read_swf(const std::filesystem::path& path, SwfReadOptions options) {
  LineSource source(path);
  return parse_lines(path.string(), options, source.size_hint(), [&] { return source.next(); });
}

SwfTrace parse_swf(std::istream& in, std::string_view display_name, SwfReadOptions options) {
  std::string line;
  std::size_t number = 0;
  // The same cap and error as a file's (LineSource), so that a stream without line breaks is not read
  // into memory whole either.
  return parse_lines(display_name, options, 0, [&]() -> std::optional<std::string_view> {
    const LineRead got = read_line(*in.rdbuf(), line, LineSource::kMaxLineBytes);
    if (got == LineRead::end) return std::nullopt;
    ++number;
    if (got == LineRead::too_long) throw_line_too_long(display_name, number);
    return line;
  });
}

}  // namespace nvlsim
