#include "schedulers/yaml_documents.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "schedulers/yaml_stray_comma.hpp"

namespace nvlsim {

namespace {

long resident_bytes(pid_t pid) {
  std::ifstream statm(fmt::format("/proc/{}/statm", pid));
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// Whether yaml-cpp reads `text` to its end (a document or a syntax error) within the bounds, tried in a
// child so that a loop or an unbounded allocation costs only the child.
bool finishes_reading(const std::string& text) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return true;  // no child to try in: read in place, as without the guard
  if (pid == 0) {
    int code = 0;
    try {
      YAML::LoadAll(text);
    } catch (const YAML::Exception&) {
    } catch (...) {
      code = 1;
    }
    _exit(code);
  }
  const double mib = static_cast<double>(text.size()) / (1 << 20);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long>((10 + 2 * mib) * 1000));
  const long memory = (1L << 30) + 128L * static_cast<long>(text.size());
  for (auto pause = std::chrono::microseconds(200);;
       pause = std::min(pause * 2, std::chrono::microseconds(20'000))) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (std::chrono::steady_clock::now() > deadline || resident_bytes(pid) > memory) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(pause);
  }
}

}  // namespace

std::vector<YAML::Node> load_yaml_documents(std::string_view text) {
  if (const auto control = find_control_character(text))
    throw YamlSyntaxError(control->line,
                          fmt::format("YAML syntax error at column {}: a control character YAML "
                                      "does not allow",
                                      control->column));
  if (const auto comma = find_stray_comma(text))
    throw YamlSyntaxError(
        comma->line,
        fmt::format("YAML syntax error at column {}: ',' outside a [...] or {{...}} list", comma->column));
  const std::string copy(text);
  if (!finishes_reading(copy))
    throw YamlSyntaxError(
        0,
        "YAML syntax error: yaml-cpp 0.7 does not finish reading this file (it loops on some "
        "malformed YAML, such as a ',' at the start of a line after a value); check its syntax");
  try {
    return YAML::LoadAll(copy);
  } catch (const YAML::Exception& e) {
    throw YamlSyntaxError(e.mark.line + 1,
                          fmt::format("YAML syntax error at column {}: {}", e.mark.column + 1, e.msg));
  }
}

}  // namespace nvlsim
