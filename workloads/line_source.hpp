#pragma once
// Reads a file line by line, gunzipping it on the fly when it is gzip-compressed
// (zlib's gz functions pass plain files through unchanged).

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvlsim {

class LineSource {
 public:
  // Longest line read: far beyond any trace's line, and a clear error instead of reading a file without
  // line breaks into memory whole.
  static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

  // Throws InputError "FILE: cannot open: reason".
  explicit LineSource(const std::filesystem::path& path);

  // The next line without its '\n' (a '\r' before it is kept), valid until the next call; nullopt at
  // the end of the file. Throws InputError "FILE: cannot read: reason", "FILE: cannot decompress: reason"
  // or "FILE:LINE: line longer than N bytes".
  std::optional<std::string_view> next();

  // Number of the line next() returned last (1-based).
  std::size_t line() const { return line_; }

  // About how many bytes of text the file holds, to size containers up front: the file size, or the
  // uncompressed size a gzip trailer records (last member only, modulo 4 GiB). 0 when unknown.
  std::uint64_t size_hint() const { return size_hint_; }

 private:
  struct GzClose {
    void operator()(gzFile file) const { gzclose(file); }
  };

  void refill();
  [[noreturn]] void throw_read_error(int code, const char* zlib_message) const;

  std::string name_;
  std::unique_ptr<gzFile_s, GzClose> file_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;  // first unread byte in buffer_
  std::size_t end_ = 0;    // end of the bytes read into buffer_
  bool eof_ = false;
  std::size_t line_ = 0;
  std::uint64_t size_hint_ = 0;
};

// Throws InputError "NAME:LINE: line longer than N bytes" (N = LineSource::kMaxLineBytes): the error of a
// trace line past the cap, read from a file or a stream.
[[noreturn]] void throw_line_too_long(std::string_view name, std::size_t line);

}  // namespace nvlsim
