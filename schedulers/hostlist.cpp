#include "schedulers/hostlist.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <stdexcept>

namespace nvlsim {
namespace {

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
  int value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
    throw std::invalid_argument(fmt::format("bad range '{}' in hostlist", range));
  }
  return value;
}

// "001-018" -> 001 ... 018; "7" -> 7.
std::vector<std::string> expand_range(std::string_view range) {
  const std::size_t dash = range.find('-');
  const std::string_view first = range.substr(0, dash);
  const int low = to_number(first, range);
  const int high = dash == std::string_view::npos ? low : to_number(range.substr(dash + 1), range);
  if (high < low) throw std::invalid_argument(fmt::format("reversed range '{}' in hostlist", range));
  std::vector<std::string> numbers;
  for (int n = low; n <= high; ++n) numbers.push_back(fmt::format("{:0{}}", n, first.size()));
  return numbers;
}

void expand_name(std::string_view name, std::string prefix, std::vector<std::string>& out) {
  const std::size_t open = name.find('[');
  if (open == std::string_view::npos) {
    out.push_back(prefix + std::string(name));
    return;
  }
  const std::size_t close = name.find(']', open);
  prefix += name.substr(0, open);
  const std::string_view ranges = name.substr(open + 1, close - open - 1);
  for (std::size_t start = 0; start <= ranges.size();) {
    const std::size_t comma = std::min(ranges.find(',', start), ranges.size());
    for (const std::string& number : expand_range(ranges.substr(start, comma - start))) {
      expand_name(name.substr(close + 1), prefix + number, out);
    }
    start = comma + 1;
  }
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expression) {
  std::vector<std::string> names;
  for (std::string_view part : split_names(expression)) {
    if (part.empty()) throw std::invalid_argument(fmt::format("empty name in hostlist '{}'", expression));
    expand_name(part, "", names);
  }
  return names;
}

}  // namespace nvlsim
