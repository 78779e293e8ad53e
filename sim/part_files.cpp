#include "sim/part_files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "sim/deferred_signals.hpp"

namespace nvlsim {

namespace fs = std::filesystem;

PartFiles::PartFiles(fs::path dir)
    : dir_(std::move(dir)), prefix_(fmt::format(".nvlsim-part-{}-", ::getpid())) {}

fs::path PartFiles::path(std::size_t policy, std::string_view file) const {
  return dir_ / fmt::format("{}{}-{}", prefix_, policy, file);
}

void PartFiles::remove() const noexcept {
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().starts_with(prefix_)) fs::remove(it->path(), ec);
}

void PartFiles::append(std::ostream& out, std::size_t policy, std::string_view file) const {
  DeferredSignals::check();
  const fs::path part = path(policy, file);
  std::ifstream in(part, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read: {}", part.string(), std::strerror(errno)));
  // Copied in pieces, not with `out << in.rdbuf()`, which fails the stream on an empty part.
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) out.write(buf, in.gcount());
  if (in.bad()) throw std::runtime_error(fmt::format("{}: read failed", part.string()));
}

}  // namespace nvlsim
