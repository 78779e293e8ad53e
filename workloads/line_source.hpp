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
  // Throws InputError "FILE: cannot open: reason".
  explicit LineSource(const std::filesystem::path& path);

  // The next line without its '\n' (a '\r' before it is kept), valid until the next call; nullopt at
  // the end of the file. Throws InputError "FILE: cannot read: reason" or "FILE: cannot decompress: reason".
  std::optional<std::string_view> next();

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
  std::uint64_t size_hint_ = 0;
};

}  // namespace nvlsim
