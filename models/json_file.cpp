#include "models/json_file.hpp"

#include <array>
#include <fstream>
#include <system_error>

namespace nvlsim {

namespace {

[[noreturn]] void too_large(const std::string& file, std::string_view size, std::uintmax_t max_bytes) {
  throw InputError(
      fmt::format("{}: {}more than the {} MiB a JSON file may have", file, size, max_bytes >> 20));
}

}  // namespace

std::string read_json_text(const std::filesystem::path& path, std::uintmax_t max_bytes) {
  const std::string file = path.string();
  // A folder opens as a stream that fails on the first read, which the JSON parser would call
  // "unexpected end of input".
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw InputError(fmt::format("{}: is a folder, expected a JSON file", file));
  // A regular file's size is known before reading it; other files (a FIFO, /dev/zero) are read up to the
  // cap and no further.
  const bool regular = std::filesystem::is_regular_file(path, error);
  const std::uintmax_t size = regular ? std::filesystem::file_size(path, error) : 0;
  if (regular && !error && size > max_bytes) too_large(file, fmt::format("{} bytes, ", size), max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open", file));
  std::string text;
  if (regular && !error) text.reserve(size);
  std::array<char, 1 << 16> chunk;
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    if (text.size() + static_cast<std::size_t>(in.gcount()) > max_bytes) too_large(file, "", max_bytes);
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw InputError(fmt::format("{}: cannot read", file));
  // nlohmann's lexer takes a NUL byte for the end of input, so a document followed by a NUL and anything
  // at all would be accepted; a JSON text never holds one (strings must escape control characters).
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
    throw InputError(
        fmt::format("{}: not valid JSON: a NUL byte at offset {} (is this a binary file?)", file, nul));
  return text;
}

}  // namespace nvlsim
