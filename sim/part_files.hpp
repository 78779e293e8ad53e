#pragma once
// The parts of the output files that policies' child processes write into the output folder, one per
// policy and file, for the parent to join. Hidden names carry the parent's process id, so that whatever
// ends the run, removing every name with this run's prefix cleans up, without knowing which children
// got as far as writing.

#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>

namespace nvlsim {

class PartFiles {
 public:
  explicit PartFiles(std::filesystem::path dir);
  // Removes every part of this run: joined, or left by a failed or interrupted one.
  ~PartFiles() { remove(); }
  PartFiles(const PartFiles&) = delete;
  PartFiles& operator=(const PartFiles&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  // Where policy number `policy` writes its part of `file`.
  std::filesystem::path path(std::size_t policy, std::string_view file) const;
  void remove() const noexcept;
  // Writes the part to `out`. Throws std::runtime_error if the part cannot be read, Interrupted when a
  // signal held back by DeferredSignals waits.
  void append(std::ostream& out, std::size_t policy, std::string_view file) const;

 private:
  std::filesystem::path dir_;
  std::string prefix_;
};

}  // namespace nvlsim
