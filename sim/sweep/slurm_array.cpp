#include "sim/sweep/slurm_array.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sim/whole_file.hpp"

extern char** environ;

namespace nvlsim {

namespace fs = std::filesystem;

namespace {

// Single quotes for the shell, so that any folder name reaches nvlsim unchanged.
std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// Runs `args` (found on PATH) with stdout and stderr into `output`; returns its wait status.
int run_program(const std::vector<std::string>& args, const fs::path& output) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int error = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error(fmt::format("cannot start {}: {}", args[0], std::strerror(error)));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      throw std::runtime_error(fmt::format("waiting for {}: {}", args[0], std::strerror(errno)));
  return status;
}

}  // namespace

std::string array_ranges(std::span<const std::size_t> indexes) {
  std::string out;
  for (std::size_t i = 0; i < indexes.size();) {
    std::size_t j = i;
    while (j + 1 < indexes.size() && indexes[j + 1] == indexes[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += i == j ? std::to_string(indexes[i]) : fmt::format("{}-{}", indexes[i], indexes[j]);
    i = j + 1;
  }
  return out;
}

std::string sbatch_script(const fs::path& dir, std::span<const std::size_t> indexes,
                          const SlurmArrayOptions& options) {
  const fs::path absolute = fs::absolute(dir).lexically_normal();
  std::string array = array_ranges(indexes);
  if (options.max_parallel > 0) array += fmt::format("%{}", options.max_parallel);
  // The run writes its own stdout and stderr into its folder; Slurm's files keep what comes before.
  return fmt::format(
      "#!/bin/sh\n"
      "# nvlsim sweep: task I runs run I of {0}/sweep-grid.json (docs/sweep.md).\n"
      "#SBATCH --job-name=nvlsim-sweep\n"
      "#SBATCH --array={1}\n"
      "#SBATCH --output={0}/slurm/%A_%a.out\n"
      "exec {2} sweep run-one {3} \"$SLURM_ARRAY_TASK_ID\"\n",
      absolute.string(), array, shell_quoted(options.program.string()), shell_quoted(absolute.string()));
}

std::string submit_array(const fs::path& dir, std::span<const std::size_t> indexes,
                         const SlurmArrayOptions& options) {
  const fs::path script = dir / "sweep.sbatch";
  write_whole_file(script, [&](std::ostream& out) { out << sbatch_script(dir, indexes, options); });
  fs::create_directories(dir / "slurm");
  std::vector<std::string> args = {"sbatch", "--parsable"};
  if (options.wait) args.push_back("--wait");
  for (std::string& word : words(options.sbatch_options)) args.push_back(std::move(word));
  args.push_back(script.string());
  const fs::path output = dir / "slurm" / "sbatch.out";
  const int status = run_program(args, output);
  std::ifstream in(output);
  std::string first, line, all;
  while (std::getline(in, line)) {
    if (first.empty()) first = line;
    all += line + "\n";
  }
  // --parsable prints "JOBID" or "JOBID;CLUSTER" first; with --wait a failed task makes the status non-zero.
  const std::string id = first.substr(0, first.find(';'));
  const bool submitted = !id.empty() && id.find_first_not_of("0123456789") == std::string::npos;
  if (!submitted || (!options.wait && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)))
    throw std::runtime_error(
        fmt::format("sbatch {} failed: {}", script.string(), all.empty() ? "no output" : all));
  return id;
}

}  // namespace nvlsim
