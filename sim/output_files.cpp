#include "sim/output_files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "models/input_error.hpp"

namespace nvlsim {

namespace fs = std::filesystem;

namespace {

fs::path partial(const fs::path& path) {
  return fs::path(path.string() + ".partial");
}

}  // namespace

OutputFiles::OutputFiles(fs::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create directory: {}", dir_.string(), ec.message()));
  const fs::path probe = dir_ / fmt::format(".nvlsim-write-test-{}", ::getpid());
  {
    std::ofstream out(probe);
    if (!out) throw InputError(fmt::format("{}: cannot write here: {}", dir_.string(), std::strerror(errno)));
  }
  fs::remove(probe, ec);
}

OutputFiles::~OutputFiles() {
  if (committed_) return;
  std::error_code ec;
  for (const std::string& name : written_) fs::remove(partial(dir_ / name), ec);
}

void OutputFiles::write(const std::string& name, const std::function<void(std::ostream&)>& content) {
  const fs::path path = dir_ / name;
  written_.push_back(name);
  std::ofstream out(partial(path));
  if (!out)
    throw std::runtime_error(fmt::format("{}: cannot write: {}", path.string(), std::strerror(errno)));
  content(out);
  out.flush();
  if (!out)
    throw std::runtime_error(fmt::format("{}: write failed: {}", path.string(), std::strerror(errno)));
}

void OutputFiles::commit() {
  for (const std::string& name : written_) {
    std::error_code ec;
    fs::rename(partial(dir_ / name), dir_ / name, ec);
    if (ec)
      throw std::runtime_error(
          fmt::format("{}: cannot move into place: {}", (dir_ / name).string(), ec.message()));
  }
  committed_ = true;
}

}  // namespace nvlsim
