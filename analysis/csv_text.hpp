#pragma once
// The text of one CSV cell, written and read back: every CSV nvlsim writes uses these.

#include <string>
#include <string_view>
#include <vector>

namespace nvlsim {

// Shortest text that reads back as the same double; empty for undefined values.
void append_number(std::string& line, double v);
// The decimal digits of an integer cell.
void append_integer(std::string& line, long long v);
std::string num(double v);
// `text`, quoted when it holds a comma, a quote or a newline.
void append_quoted(std::string& line, std::string_view text);

// The cells of one line `append_quoted` and `append_number` wrote, unquoted. Throws std::runtime_error
// for a quote that does not close.
std::vector<std::string> split_row(std::string_view line);
// A cell append_number wrote: empty reads as NaN. Throws std::runtime_error for anything else.
double parse_number(std::string_view cell);

}  // namespace nvlsim
