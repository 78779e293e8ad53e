#include "platforms/simgrid_abort_guard.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xbt/asserts.h>
#include <xbt/log.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "platforms/simgrid_message_hints.hpp"

namespace nvlsim {

namespace {

// What the handler needs, set up before it can run: it may only make async-signal-safe calls.
bool guarding = false;
int log_fd = -1;  // memory file SimGrid's log goes to while the guard lives
std::FILE* log_stream = nullptr;
char prefix[4096];  // "FILE: SimGrid cannot load it: "
std::size_t prefix_size = 0;
int previous_no_loc = 0;
struct sigaction previous_abort {};

void put(std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(STDERR_FILENO, text.data(), text.size());
    if (written <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(written));
  }
}

// The last `capacity` bytes SimGrid logged.
std::string_view log_tail(char* buffer, std::size_t capacity) {
  struct stat info {};
  if (log_fd < 0 || ::fstat(log_fd, &info) != 0) return {};
  const off_t start = std::max<off_t>(0, info.st_size - static_cast<off_t>(capacity));
  const ssize_t got = ::pread(log_fd, buffer, capacity, start);
  return got > 0 ? std::string_view(buffer, static_cast<std::size_t>(got)) : std::string_view();
}

// The text of the last critical message ("[0.000000] [root/CRITICAL] Link 'l' declared several times in
// the platform."); empty when there is none.
std::string_view last_critical(std::string_view log) {
  constexpr std::string_view kMark = "/CRITICAL] ";
  const std::size_t mark = log.rfind(kMark);
  if (mark == std::string_view::npos) return {};
  const std::string_view message = log.substr(mark + kMark.size());
  return message.substr(0, message.find('\n'));
}

extern "C" void on_abort(int) {
  static char buffer[1 << 16];
  std::string_view log = log_tail(buffer, sizeof buffer);
  const std::string_view critical = last_critical(log);
  put(std::string_view(prefix, prefix_size));
  if (!critical.empty()) {
    put(critical);
    if (const std::string_view hint = simgrid_message_hint(critical); !hint.empty()) {
      put(" (");
      put(hint);
      put(")");
    }
  } else {
    // Another abort (a failed assertion elsewhere, an exception SimGrid could not pass on): all it logged.
    while (log.ends_with('\n')) log.remove_suffix(1);
    put(log.empty() ? "it stopped" : "it stopped, having logged:\n");
    put(log);
  }
  put("\n");
  ::_exit(2);
}

xbt_log_category_t root() {
  return &_XBT_LOGV(XBT_LOG_ROOT_CAT);
}

}  // namespace

SimGridAbortGuard::SimGridAbortGuard(const std::string& file) {
  if (guarding) throw std::logic_error("SimGridAbortGuard: one at a time");
  guarding = true;
  const int length = std::snprintf(prefix, sizeof prefix, "%s: SimGrid cannot load it: ", file.c_str());
  prefix_size = std::min(sizeof prefix - 1, static_cast<std::size_t>(std::max(length, 0)));
  // Unbuffered, so that the message before an abort is in the file, not in a buffer abort() drops. Without
  // a memory file SimGrid logs to stderr as before, and an abort still ends as an input error.
  log_fd = ::memfd_create("nvlsim-simgrid-log", MFD_CLOEXEC);
  const int stream_fd = log_fd >= 0 ? ::dup(log_fd) : -1;
  log_stream = stream_fd >= 0 ? ::fdopen(stream_fd, "w") : nullptr;
  if (log_stream != nullptr) {
    std::setvbuf(log_stream, nullptr, _IONBF, 0);
    xbt_log_appender_set(root(), xbt_log_appender_stream(log_stream));
  } else if (stream_fd >= 0) {
    ::close(stream_fd);
  }
  // No backtrace after a failed assertion, and no source locations: the user's file is at fault.
  previous_no_loc = xbt_log_no_loc;
  xbt_log_no_loc = 1;
  struct sigaction action {};
  action.sa_handler = on_abort;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGABRT, &action, &previous_abort);
}

SimGridAbortGuard::~SimGridAbortGuard() {
  ::sigaction(SIGABRT, &previous_abort, nullptr);
  xbt_log_no_loc = previous_no_loc;
  if (log_stream != nullptr) {
    xbt_log_appender_set(root(), xbt_log_appender_file_new(nullptr));  // stderr, SimGrid's default
    std::fclose(log_stream);
    log_stream = nullptr;
  }
  if (log_fd >= 0) {
    char chunk[4096];
    off_t at = 0;
    for (ssize_t got; (got = ::pread(log_fd, chunk, sizeof chunk, at)) > 0; at += got)
      put(std::string_view(chunk, static_cast<std::size_t>(got)));
    ::close(log_fd);
    log_fd = -1;
  }
  guarding = false;
}

}  // namespace nvlsim
