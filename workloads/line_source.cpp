#include "workloads/line_source.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>

#include <fmt/core.h>

#include "models/input_error.hpp"

namespace nvlsim {

namespace {

// Large reads keep zlib and memchr busy on whole blocks instead of per-line calls.
constexpr std::size_t kChunk = std::size_t{1} << 18;

std::uint64_t size_of(const std::filesystem::path& path, bool compressed) {
  std::error_code error;
  const std::uint64_t size = std::filesystem::file_size(path, error);
  if (error) return 0;
  if (!compressed) return size;
  // A gzip file ends with the uncompressed size, 4 bytes little-endian (RFC 1952).
  std::ifstream in(path, std::ios::binary);
  unsigned char tail[4] = {};
  if (size < sizeof tail || !in.seekg(-4, std::ios::end) || !in.read(reinterpret_cast<char*>(tail), 4)) {
    return 0;
  }
  return tail[0] | tail[1] << 8 | tail[2] << 16 | std::uint64_t{tail[3]} << 24;
}

}  // namespace

LineSource::LineSource(const std::filesystem::path& path) : name_(path.string()), buffer_(kChunk) {
  errno = 0;
  file_.reset(gzopen(path.c_str(), "rb"));
  if (!file_) {
    // gzopen leaves errno at 0 only when it runs out of memory.
    throw InputError(fmt::format("{}: cannot open: {}", name_, std::strerror(errno ? errno : ENOMEM)));
  }
  gzbuffer(file_.get(), kChunk);
  size_hint_ = size_of(path, gzdirect(file_.get()) == 0);
}

std::optional<std::string_view> LineSource::next() {
  std::size_t scanned = 0;  // bytes after begin_ already known to hold no '\n'
  for (;;) {
    const char* data = buffer_.data() + begin_;
    const std::size_t size = end_ - begin_;
    if (const void* newline = std::memchr(data + scanned, '\n', size - scanned)) {
      const std::size_t length = static_cast<const char*>(newline) - data;
      ++line_;
      if (length > kMaxLineBytes) throw_line_too_long(name_, line_);
      begin_ += length + 1;
      return std::string_view(data, length);
    }
    if (size > kMaxLineBytes) {
      ++line_;
      throw_line_too_long(name_, line_);
    }
    if (eof_) {
      if (size == 0) return std::nullopt;
      ++line_;
      begin_ = end_;  // a last line without '\n'
      return std::string_view(data, size);
    }
    scanned = size;
    refill();
  }
}

// Moves the unread bytes to the front, grows the buffer when one line fills it, and reads more.
void LineSource::refill() {
  std::copy(buffer_.begin() + begin_, buffer_.begin() + end_, buffer_.begin());
  end_ -= begin_;
  begin_ = 0;
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);

  const auto wanted = static_cast<unsigned>(std::min<std::size_t>(buffer_.size() - end_, INT_MAX));
  const int got = gzread(file_.get(), buffer_.data() + end_, wanted);
  int code = Z_OK;
  const char* message = gzerror(file_.get(), &code);
  // A truncated stream returns its last bytes with Z_BUF_ERROR set, so check the state, not just `got`.
  if (got < 0 || code != Z_OK) throw_read_error(code, message);
  if (got == 0) eof_ = true;
  end_ += static_cast<std::size_t>(got);
}

void throw_line_too_long(std::string_view name, std::size_t line) {
  throw InputError(fmt::format("{}:{}: line longer than {} bytes", name, line, LineSource::kMaxLineBytes));
}

void LineSource::throw_read_error(int code, const char* zlib_message) const {
  // zlib prefixes its messages (strerror's text for Z_ERRNO) with the path; the name already comes first.
  std::string_view message = zlib_message;
  const std::string prefix = name_ + ": ";
  if (message.starts_with(prefix)) message.remove_prefix(prefix.size());
  const char* what = code == Z_ERRNO ? "cannot read" : "cannot decompress";
  throw InputError(fmt::format("{}: {}: {}", name_, what, message));
}

}  // namespace nvlsim
