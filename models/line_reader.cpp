#include "models/line_reader.hpp"

namespace nvlsim {

LineRead read_line(std::streambuf& in, std::string& line, std::size_t max_bytes) {
  line.clear();
  for (;;) {
    const int c = in.sbumpc();
    if (c == std::char_traits<char>::eof()) return line.empty() ? LineRead::end : LineRead::ok;
    if (c == '\n') return LineRead::ok;
    if (line.size() == max_bytes) return LineRead::too_long;
    line.push_back(static_cast<char>(c));
  }
}

}  // namespace nvlsim
