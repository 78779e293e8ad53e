#pragma once
// std::getline with a cap on the line's length, so that a stream without line breaks is an error rather
// than read into memory whole.

#include <cstddef>
#include <streambuf>
#include <string>
#include <string_view>

namespace nvlsim {

enum class LineRead { ok, end, too_long };

// The next line of `in` into `line`, without its '\n' (a '\r' before it is kept); `end` when nothing is
// left; `too_long` after reading max_bytes + 1 bytes of a line, the rest of it unread.
LineRead read_line(std::streambuf& in, std::string& line, std::size_t max_bytes);

// A file's first line without the UTF-8 byte order mark that spreadsheet exports and some editors put
// before it, which would otherwise sit invisibly inside the first field ("got \"\xEF\xBB\xBF1\"").
constexpr std::string_view without_byte_order_mark(std::string_view first_line) {
  return first_line.starts_with("\xEF\xBB\xBF") ? first_line.substr(3) : first_line;
}

}  // namespace nvlsim
