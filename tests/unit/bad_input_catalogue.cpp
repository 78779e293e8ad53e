#include "bad_input_catalogue.hpp"

#include <sys/wait.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "nvlsim_process.hpp"

namespace nvlsim::test {

namespace fs = std::filesystem;

namespace {

// The regular files under `dir` (none when it does not exist).
std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  if (!fs::exists(dir)) return names;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) names.push_back(entry.path().filename().string());
  return names;
}

}  // namespace

void check_bad_inputs(std::string_view table, const std::vector<BadInput>& cases) {
  const fs::path root = scratch_dir("catalogue-" + std::string(table));
  int index = 0;
  for (const BadInput& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const fs::path dir = root / std::to_string(index);
      fs::create_directories(dir);
      for (const auto& [name, content] : c.files) std::ofstream(dir / name) << content;
      // Relative names, run from the case's folder, as a user types them.
      const bool own_out = c.args.find("--out") != std::string::npos;
      const bool other_command =
          c.args.starts_with("platform ") || c.args.starts_with("workload ") || c.args.starts_with("probe ");
      const std::string run_flags = other_command ? ""
                                    : own_out     ? "--quiet --policy per-gpu "
                                                  : "--quiet --policy per-gpu --out out ";
      const std::string cmd = "cd " + dir.string() + " && " + NVLSIM_BINARY + " " + run_flags + c.args +
                              " >stdout.txt 2>stderr.txt";
      const int raw = std::system(cmd.c_str());
      const struct {
        int status;
        std::string err;
      } r{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp((dir / "stderr.txt").string())};
      INFO(r.err);
      CHECK(r.status == c.status);
      for (const std::string& words : c.said) CHECK(r.err.find(words) != std::string::npos);
      const std::vector<std::string> files = files_in(dir / "out");
      if (c.status == 0) {
        CHECK(std::ranges::find(files, "run.json") != files.end());
      } else {
        CHECK(files.empty());
      }
      for (const std::string& name : files) CHECK(!name.ends_with(".partial"));
    }
    ++index;
  }
}

}  // namespace nvlsim::test
