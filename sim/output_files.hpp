#pragma once
// The run's output folder, written as one set: every file goes to a temporary name and all are renamed
// into place only when each was written in full, so a failed or interrupted run never leaves a truncated
// jobs.csv beside the previous run's other files.

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace nvlsim {

class OutputFiles {
 public:
  // Creates the folder and checks that a file can be written there now, before any simulation: throws
  // InputError naming the folder otherwise.
  explicit OutputFiles(std::filesystem::path dir);
  // Removes the temporary files of a set that was not committed.
  ~OutputFiles();
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  // Writes `name` (temporarily as name.partial) and checks every byte reached it; throws
  // std::runtime_error naming the file on a write error such as a full disk.
  void write(const std::string& name, const std::function<void(std::ostream&)>& content);
  // Renames every written file into place.
  void commit();

 private:
  std::filesystem::path dir_;
  std::vector<std::string> written_;
  bool committed_ = false;
};

}  // namespace nvlsim
