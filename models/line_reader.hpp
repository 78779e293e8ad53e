#pragma once
// std::getline with a cap on the line's length, so that a stream without line breaks is an error rather
// than read into memory whole.

#include <cstddef>
#include <streambuf>
#include <string>

namespace nvlsim {

enum class LineRead { ok, end, too_long };

// The next line of `in` into `line`, without its '\n' (a '\r' before it is kept); `end` when nothing is
// left; `too_long` after reading max_bytes + 1 bytes of a line, the rest of it unread.
LineRead read_line(std::streambuf& in, std::string& line, std::size_t max_bytes);

}  // namespace nvlsim
