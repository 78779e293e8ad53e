#pragma once
// The run's output folder, written as one set: every file goes to a temporary name and all are renamed
// into place only when each was written in full, so a failed or interrupted run never leaves a truncated
// jobs.csv beside the previous run's other files. A hidden ledger lists what the last committed run
// wrote, so that a run also removes the files of an earlier run it does not write itself (a
// schedule-*.swf or a figure), and the folder always holds exactly one run.

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace nvlsim {

class OutputFiles {
 public:
  // The ledger's name in the folder.
  static constexpr std::string_view kLedger = ".nvlsim-files";

  // Creates the folder and checks that a file can be written there now, before any simulation: throws
  // InputError naming the folder otherwise.
  explicit OutputFiles(std::filesystem::path dir);
  // Removes the temporary files of a set that was not committed.
  ~OutputFiles();
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  // Writes `name` (temporarily as name.partial) and checks every byte reached it; throws
  // std::runtime_error naming the file on a write error such as a full disk, and Interrupted when a signal
  // held back by DeferredSignals waits.
  void write(const std::string& name, const std::function<void(std::ostream&)>& content);
  // Removes the earlier run's files this set does not hold, renames every written file into place in
  // the order written (the last one, run.json, marks a complete run) and writes the ledger.
  void commit();
  // After commit: adds files a helper wrote into the folder since (the figures of --plots) to the ledger.
  void adopt(const std::vector<std::string>& names);

 private:
  void write_ledger() const;

  std::filesystem::path dir_;
  std::vector<std::string> written_;
  bool committed_ = false;
};

}  // namespace nvlsim
