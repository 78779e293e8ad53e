#include "sim/sweep/local_runner.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <vector>

#include "sim/sweep/plan_file.hpp"

extern char** environ;

namespace nvlsim {

namespace fs = std::filesystem;

namespace {

constexpr int kErrorLinesShown = 5;

pid_t start_run(const LocalRunnerOptions& options, const fs::path& dir, std::size_t index) {
  const std::string program = options.program.string();
  const std::string dir_text = dir.string();
  const std::string index_text = std::to_string(index);
  std::vector<char*> argv = {const_cast<char*>(program.c_str()),    const_cast<char*>("sweep"),
                             const_cast<char*>("run-one"),          const_cast<char*>(dir_text.c_str()),
                             const_cast<char*>(index_text.c_str()), nullptr};
  // The run writes its own stdout and stderr into its folder; until it has one, its stdout is not ours.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int error = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error(fmt::format("cannot start {}: {}", program, std::strerror(error)));
  return pid;
}

std::string exit_text(int status) {
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return "stopped";
}

// "failed (exit status 2); FILE:" and its first lines, indented.
std::string failure_report(const fs::path& dir, const SweepPlan& plan, std::size_t index, int status) {
  const SweepRun& run = plan.runs[index];
  const fs::path error = error_path(run_dir(dir, run));
  std::string text = fmt::format("nvlsim sweep: run {} (cell {}, seed {}) failed ({})", index, run.cell,
                                 run.seed, exit_text(status));
  std::ifstream in(error);
  std::string line;
  for (int n = 0; n < kErrorLinesShown && std::getline(in, line); ++n)
    text += (n == 0 ? fmt::format("; {}:\n", error.string()) : "\n") + "  " + line;
  return text + "\n";
}

std::string duration_text(double seconds) {
  const long s = std::lround(seconds);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, s / 60 % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

class Progress {
 public:
  Progress(bool shown, std::size_t total) : shown_(shown), total_(total) {}

  void update(std::size_t done, std::size_t failed, std::size_t ran_now, std::size_t left) {
    if (!shown_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string eta =
        ran_now == 0 ? "?"
                     : duration_text(elapsed / static_cast<double>(ran_now) * static_cast<double>(left));
    std::fprintf(stderr, "\r\033[Knvlsim sweep: %zu/%zu runs done, %zu failed, ETA %s", done, total_, failed,
                 eta.c_str());
    std::fflush(stderr);
  }
  // Clears the line before other text is written.
  void clear() const {
    if (shown_) std::fputs("\r\033[K", stderr);
  }

 private:
  bool shown_;
  std::size_t total_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

LocalRunnerResult run_locally(const fs::path& dir, const SweepPlan& plan, const LocalRunnerOptions& options) {
  LocalRunnerResult result;
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    if (options.resume && run_finished(dir, plan.runs[i]))
      ++result.skipped;
    else
      todo.push_back(i);
  }
  Progress progress(options.progress, plan.runs.size());
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0;
  const auto update = [&] {
    const std::size_t ran = result.succeeded + result.failed;
    progress.update(result.skipped + ran, result.failed, ran, todo.size() - ran);
  };
  update();
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < static_cast<std::size_t>(options.jobs)) {
      running.emplace(start_run(options, dir, todo[next]), todo[next]);
      ++next;
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("waiting for runs: {}", std::strerror(errno)));
    }
    const auto found = running.find(pid);
    if (found == running.end()) continue;  // not a run of ours
    const std::size_t index = found->second;
    running.erase(found);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && run_finished(dir, plan.runs[index])) {
      ++result.succeeded;
    } else {
      ++result.failed;
      progress.clear();
      std::fputs(failure_report(dir, plan, index, status).c_str(), stderr);
    }
    update();
  }
  progress.clear();
  return result;
}

}  // namespace nvlsim
