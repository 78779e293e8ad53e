#include "analysis/plot_runner.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <filesystem>
#include <system_error>
#include <vector>

extern char** environ;

namespace nvlsim {

std::string python_interpreter() {
  return NVLSIM_PYTHON;
}

std::string plot_script() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (exe.parent_path().parent_path() / "share" / "nvlsim" / "plot.py").string();
}

int render_plots(const std::string& out_dir) {
  std::string python = python_interpreter(), script = plot_script(), dir = out_dir;
  std::vector<char*> argv{python.data(), script.data(), dir.data(), nullptr};
  pid_t pid = 0;
  // posix_spawnp rather than system(): no shell, so no quoting of the directory name.
  if (::posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return 127;
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace nvlsim
