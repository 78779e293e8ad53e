#include "sim/whole_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "models/input_error.hpp"

namespace nvlsim {

namespace fs = std::filesystem;

void write_whole_file(const fs::path& path, const std::function<void(std::ostream&)>& content) {
  std::error_code ec;
  // A symbolic link is written through, never replaced: /dev/stdout links to the process's stdout, which
  // may be a regular file, and renaming over the link would replace /dev/stdout itself.
  const fs::file_status own = fs::symlink_status(path, ec);
  const bool in_place = fs::exists(own) && (fs::is_symlink(own) || !fs::is_regular_file(own));
  const fs::path target = in_place ? path : fs::path(path.string() + ".partial");
  {
    std::ofstream out(target);
    if (!out) throw InputError(fmt::format("{}: cannot write: {}", path.string(), std::strerror(errno)));
    content(out);
    out.flush();
    if (!out) {
      const int error = errno;
      out.close();
      if (!in_place) fs::remove(target, ec);
      throw std::runtime_error(fmt::format("{}: write failed: {}", path.string(), std::strerror(error)));
    }
  }
  if (in_place) return;
  fs::rename(target, path, ec);
  if (ec) {
    fs::remove(target, ec);
    throw std::runtime_error(fmt::format("{}: cannot move into place: {}", path.string(), ec.message()));
  }
}

}  // namespace nvlsim
