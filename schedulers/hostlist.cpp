#include "schedulers/hostlist.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <stdexcept>

#include "models/read_number.hpp"

namespace nvlsim {
namespace {

// Far above any machine nvlsim models (1,000 racks are 18,000 trays; platforms have at most 2^18 trays),
// and low enough that a typo such as n[01-2147483647] is an error within a second rather than the whole
// memory; the bytes bound does the same for long names.
constexpr std::size_t kMaxNames = std::size_t{1} << 18;
constexpr std::size_t kMaxBytes = std::size_t{16} << 20;
// Numbers in a range fit an int (10 digits); a wider zero padding would only make every name longer.
constexpr std::size_t kMaxDigits = 10;

[[noreturn]] void too_many() {
  throw std::invalid_argument(
      fmt::format("hostlist names more than {} nodes or {} MiB of names", kMaxNames, kMaxBytes >> 20));
}

// Top-level comma-separated parts; commas inside brackets belong to a range list.
std::vector<std::string_view> split_names(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    } else if (text[i] == '[') {
      if (++depth > 1) throw std::invalid_argument(fmt::format("nested '[' in hostlist '{}'", text));
    } else if (text[i] == ']') {
      if (--depth < 0) throw std::invalid_argument(fmt::format("unbalanced ']' in hostlist '{}'", text));
    }
  }
  if (depth != 0) throw std::invalid_argument(fmt::format("unbalanced '[' in hostlist '{}'", text));
  return parts;
}

int to_number(std::string_view digits, std::string_view range) {
  const auto number = read_number<int>(digits);
  if (!number || digits.size() > kMaxDigits)
    throw std::invalid_argument(fmt::format("bad range '{}' in hostlist", range));
  return number.value;
}

// "001-018" -> 001 ... 018; "7" -> 7; appended to `numbers`.
void expand_range(std::string_view range, std::vector<std::string>& numbers) {
  const std::size_t dash = range.find('-');
  const std::string_view first = range.substr(0, dash);
  const int low = to_number(first, range);
  const int high = dash == std::string_view::npos ? low : to_number(range.substr(dash + 1), range);
  if (high < low) throw std::invalid_argument(fmt::format("reversed range '{}' in hostlist", range));
  if (static_cast<std::size_t>(high - low) + numbers.size() >= kMaxNames) too_many();
  for (int n = low; n <= high; ++n) numbers.push_back(fmt::format("{:0{}}", n, first.size()));
}

// "1-3,7" -> 1 2 3 7.
std::vector<std::string> expand_ranges(std::string_view ranges) {
  std::vector<std::string> numbers;
  for (std::size_t start = 0; start <= ranges.size();) {
    const std::size_t comma = std::min(ranges.find(',', start), ranges.size());
    expand_range(ranges.substr(start, comma - start), numbers);
    start = comma + 1;
  }
  return numbers;
}

// One name with any number of bracket groups, left to right: each group multiplies the names so far by
// its numbers. A loop, not recursion, since the number of groups is the user's. `out_bytes` counts the
// text of the names in `out`.
void expand_name(std::string_view name, std::vector<std::string>& out, std::uint64_t& out_bytes) {
  std::vector<std::string> names(1);
  std::uint64_t bytes = 0;  // text of `names`
  // Checked before building, in 64 bits: names x numbers can exceed the bounds by far.
  const auto check = [&](std::uint64_t count, std::uint64_t text) {
    if (out.size() + count > kMaxNames || out_bytes + text > kMaxBytes) too_many();
  };
  for (;;) {
    const std::size_t open = name.find('[');
    const std::string_view text = name.substr(0, open);
    bytes += names.size() * text.size();
    check(names.size(), bytes);
    for (std::string& n : names) n += text;
    if (open == std::string_view::npos) break;
    const std::size_t close = name.find(']', open);
    const std::vector<std::string> numbers = expand_ranges(name.substr(open + 1, close - open - 1));
    std::uint64_t number_bytes = 0;
    for (const std::string& number : numbers) number_bytes += number.size();
    const std::uint64_t next_bytes = bytes * numbers.size() + number_bytes * names.size();
    check(std::uint64_t{names.size()} * numbers.size(), next_bytes);
    std::vector<std::string> next;
    next.reserve(names.size() * numbers.size());
    for (const std::string& n : names)
      for (const std::string& number : numbers) next.push_back(n + number);
    names = std::move(next);
    bytes = next_bytes;
    name = name.substr(close + 1);
  }
  out_bytes += bytes;
  std::ranges::move(names, std::back_inserter(out));
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expression) {
  std::vector<std::string> names;
  std::uint64_t bytes = 0;
  for (std::string_view part : split_names(expression)) {
    if (part.empty()) throw std::invalid_argument(fmt::format("empty name in hostlist '{}'", expression));
    expand_name(part, names, bytes);
  }
  return names;
}

namespace {

// "tray-017" -> prefix "tray-", digits "017"; no trailing digits -> empty digits.
std::pair<std::string_view, std::string_view> split_number(std::string_view name) {
  std::size_t start = name.size();
  while (start > 0 && std::isdigit(static_cast<unsigned char>(name[start - 1]))) --start;
  return {name.substr(0, start), name.substr(start)};
}

// Numbers written with leading zeros keep their width in a range; others ("7", "35") share width 0.
std::size_t padded_width(std::string_view digits) {
  return digits.size() > 1 && digits[0] == '0' ? digits.size() : 0;
}

}  // namespace

std::string compress_hostlist(const std::vector<std::string>& names) {
  std::string out;
  std::size_t i = 0;
  while (i < names.size()) {
    const auto [prefix, digits] = split_number(names[i]);
    if (!out.empty()) out += ',';
    if (digits.empty() || digits.size() > 9) {
      out += names[i++];
      continue;
    }
    // Names under this prefix with numbers of the same width, as ranges of consecutive numbers.
    std::vector<std::pair<int, int>> ranges;
    std::size_t j = i;
    for (; j < names.size(); ++j) {
      const auto [p, d] = split_number(names[j]);
      if (p != prefix || d.empty() || d.size() > 9 || padded_width(d) != padded_width(digits)) break;
      const int n = to_number(d, names[j]);
      if (!ranges.empty() && ranges.back().second + 1 == n)
        ranges.back().second = n;
      else
        ranges.emplace_back(n, n);
    }
    if (j - i == 1) {
      out += names[i++];
      continue;
    }
    out += std::string(prefix) + '[';
    const int width = static_cast<int>(padded_width(digits));
    for (std::size_t r = 0; r < ranges.size(); ++r) {
      if (r > 0) out += ',';
      out += fmt::format("{:0{}}", ranges[r].first, width);
      if (ranges[r].second != ranges[r].first) out += fmt::format("-{:0{}}", ranges[r].second, width);
    }
    out += ']';
    i = j;
  }
  return out;
}

}  // namespace nvlsim
