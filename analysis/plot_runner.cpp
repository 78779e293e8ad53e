#include "analysis/plot_runner.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <filesystem>
#include <system_error>

extern char** environ;

namespace nvlsim {

namespace {

std::string installed_script(const char* name) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (exe.parent_path().parent_path() / "share" / "nvlsim" / name).string();
}

int run(std::vector<std::string> command) {
  std::vector<char*> argv;
  for (std::string& arg : command) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  // posix_spawnp rather than system(): no shell, so no quoting of the directory name.
  if (::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return 127;
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::string python_interpreter() {
  return NVLSIM_PYTHON;
}

std::string plot_script() {
  return installed_script("plot.py");
}

std::string sweep_plot_script() {
  return installed_script("sweep_plot.py");
}

int render_plots(const std::string& out_dir) {
  return run({python_interpreter(), plot_script(), out_dir});
}

std::vector<std::string> sweep_plots_command(const std::string& sweep_dir) {
  return {python_interpreter(), sweep_plot_script(), sweep_dir, "--out",
          (std::filesystem::path(sweep_dir) / "plots").string()};
}

int render_sweep_plots(const std::string& sweep_dir) {
  return run(sweep_plots_command(sweep_dir));
}

}  // namespace nvlsim
