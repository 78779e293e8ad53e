#include "child_process.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <sstream>

namespace nvlsim::test {

namespace {

void write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
}

// Appends what the pipe holds now; false once every writer has closed it.
bool read_available(int fd, std::string& text) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return n < 0;  // -1: still open, nothing to read now
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

ChildResult run_in_child(const std::function<void(std::ostream&)>& body) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    // Catch's handlers would report a signal this process is meant to die of as a failed test.
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
    std::ostringstream out;
    int code = 0;
    try {
      body(out);
    } catch (const std::exception& e) {
      out << "error " << e.what() << "\n";
      code = 1;
    }
    write_all(fds[1], out.str());
    ::_exit(code);  // no Catch or static destructors in the child
  }
  ::close(fds[1]);
  // Read while waiting, so a child writing more than the pipe holds is not blocked; stop at the child's
  // end even if processes it left running still hold the pipe open.
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  ChildResult result;
  for (;;) {
    pollfd pipe_end{fds[0], POLLIN, 0};
    ::poll(&pipe_end, 1, 100);
    const bool open = read_available(fds[0], result.text);
    if (::waitpid(pid, &result.status, open ? WNOHANG : 0) == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &result.status, 0);
      FAIL_CHECK("the child process hung; killed");
      break;
    }
  }
  read_available(fds[0], result.text);
  ::close(fds[0]);
  return result;
}

std::string checked_child_output(const std::function<void(std::ostream&)>& body) {
  auto [text, status] = run_in_child(body);
  INFO(text);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  return std::move(text);
}

std::map<std::string, double> child_values(const std::function<void(std::ostream&)>& body) {
  std::map<std::string, double> values;
  std::istringstream in(checked_child_output(body));
  std::string key;
  double value = 0;
  while (in >> key >> value) values[key] = value;
  return values;
}

}  // namespace nvlsim::test
