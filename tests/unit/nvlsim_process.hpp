#pragma once
// Runs the nvlsim binary as a user would, capturing its exit status and stderr.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "csv_table.hpp"

namespace nvlsim::test {

struct ProcessResult {
  int status = -1;
  std::string out;
  std::string err;
};

// The test process's folder in the temporary folder, removed when the process exits so that test runs
// leave nothing behind. A forked child that exits normally leaves it to its parent.
inline const std::filesystem::path& scratch_root() {
  struct Root {
    pid_t owner = ::getpid();
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("nvlsim-test-" + std::to_string(::getpid()));
    ~Root() {
      std::error_code ignored;
      if (::getpid() == owner) std::filesystem::remove_all(path, ignored);
    }
  };
  static const Root root;
  return root.path;
}

inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = scratch_root() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline ProcessResult run_nvlsim(const std::string& args, const std::filesystem::path& dir) {
  const auto out = dir / "stdout.txt";
  const auto err = dir / "stderr.txt";
  const std::string cmd =
      std::string(NVLSIM_BINARY) + " " + args + " >" + out.string() + " 2>" + err.string();
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out.string()), slurp(err.string())};
}

inline std::string data_file(const std::string& name) {
  return std::string(NVLSIM_TEST_DATA) + "/" + name;
}

}  // namespace nvlsim::test
