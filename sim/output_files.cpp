#include "sim/output_files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "models/input_error.hpp"
#include "sim/deferred_signals.hpp"
#include "sim/output_stage.hpp"

namespace nvlsim {

namespace fs = std::filesystem;

namespace {

fs::path partial(const fs::path& path) {
  return fs::path(path.string() + ".partial");
}

// The names the ledger lists; only plain names, so that a hand-edited ledger cannot reach outside the
// folder.
std::vector<std::string> read_ledger(const fs::path& path) {
  std::vector<std::string> names;
  std::ifstream in(path);
  for (std::string name; std::getline(in, name);)
    if (!name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos)
      names.push_back(name);
  return names;
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
  DeferredSignals::check();
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
  std::error_code ec;
  // A rename within the folder fails only where a folder holds the name: found before anything moves, so
  // a failed commit leaves the earlier run whole.
  for (const std::string& name : written_) {
    if (fs::is_directory(fs::symlink_status(dir_ / name, ec)))
      throw std::runtime_error(
          fmt::format("{}: cannot move into place: a folder has that name", (dir_ / name).string()));
  }
  for (const std::string& name : read_ledger(dir_ / kLedger))
    if (std::ranges::find(written_, name) == written_.end()) fs::remove(dir_ / name, ec);
  set_output_stage(OutputStage::moving);
  for (const std::string& name : written_) {
    fs::rename(partial(dir_ / name), dir_ / name, ec);
    if (ec)
      throw std::runtime_error(
          fmt::format("{}: cannot move into place: {}", (dir_ / name).string(), ec.message()));
  }
  set_output_stage(OutputStage::complete);
  committed_ = true;
  write_ledger();
}

void OutputFiles::adopt(const std::vector<std::string>& names) {
  for (const std::string& name : names)
    if (std::ranges::find(written_, name) == written_.end()) written_.push_back(name);
  write_ledger();
}

void OutputFiles::write_ledger() const {
  const fs::path path = dir_ / kLedger;
  std::ofstream out(partial(path));
  for (const std::string& name : written_) out << name << '\n';
  out.flush();
  std::error_code ec;
  if (out) fs::rename(partial(path), path, ec);
  if (!out || ec)
    throw std::runtime_error(fmt::format("{}: write failed: {}", path.string(),
                                         ec ? ec.message() : std::string(std::strerror(errno))));
}

}  // namespace nvlsim
