#include "sim/policy_processes.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "models/input_error.hpp"

namespace nvlsim {

namespace {

// Written by children, read by the parent for the progress line.
struct SharedProgress {
  std::atomic<std::uint64_t> jobs_done{0};
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

constexpr std::size_t kFrameHeader = 1 + sizeof(std::uint64_t);

// main prints other errors after "nvlsim: "; a message that already starts so would show it twice.
std::string_view unprefixed(std::string_view message) {
  constexpr std::string_view prefix = "nvlsim: ";
  if (message.starts_with(prefix)) message.remove_prefix(prefix.size());
  return message;
}

std::string system_error(std::string_view what) {
  return fmt::format("{}: {}", what, std::strerror(errno));
}

struct Frame {
  FrameTag tag;
  std::string_view payload;
};

// The frame in `bytes` if it arrived whole.
std::optional<Frame> whole_frame(std::string_view bytes) {
  if (bytes.size() < kFrameHeader) return std::nullopt;
  std::uint64_t size = 0;
  std::memcpy(&size, bytes.data() + 1, sizeof size);
  if (bytes.size() - kFrameHeader != size) return std::nullopt;
  return Frame{static_cast<FrameTag>(bytes[0]), bytes.substr(kFrameHeader)};
}

bool known_tag(char c) {
  return c == static_cast<char>(FrameTag::result) || c == static_cast<char>(FrameTag::input_error) ||
         c == static_cast<char>(FrameTag::error);
}

struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::string bytes;
  bool reaped = false;  // waited for; status holds its wait status
  int status = 0;
};

// The children of one run_policies() call and the memory they share with it. However the call ends, none
// outlives it: the destructor kills those still running and reaps every one.
class Children {
 public:
  explicit Children(std::size_t n) : list_(n), progress_bytes_(sizeof(SharedProgress) * n) {
    void* shared =
        ::mmap(nullptr, progress_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) throw std::runtime_error(system_error("cannot map shared memory for progress"));
    progress_ = new (shared) SharedProgress[n];
  }
  ~Children() {
    stop();
    ::munmap(progress_, progress_bytes_);
  }
  Children(const Children&) = delete;
  Children& operator=(const Children&) = delete;

  Child& operator[](std::size_t i) { return list_[i]; }
  SharedProgress* progress() { return progress_; }

  void close_pipe(Child& c) {
    if (c.fd >= 0) ::close(c.fd);
    c.fd = -1;
  }
  void reap(Child& c) {
    while (::waitpid(c.pid, &c.status, 0) < 0 && errno == EINTR) {
    }
    c.reaped = true;
  }
  // Kills the children still running, reaps them and closes every pipe.
  void stop() {
    for (Child& c : list_) {
      close_pipe(c);
      if (c.pid > 0 && !c.reaped) {
        ::kill(c.pid, SIGKILL);
        reap(c);
      }
    }
  }

 private:
  std::vector<Child> list_;
  std::size_t progress_bytes_;
  SharedProgress* progress_ = nullptr;
};

// SIGINT and SIGTERM while children run: the handler only notes the signal, the poll loop acts on it.
volatile std::sig_atomic_t stop_signal = 0;

extern "C" void note_signal(int signal) {
  stop_signal = signal;
}

class SignalGuard {
 public:
  SignalGuard() {
    stop_signal = 0;
    for (std::size_t i = 0; i < std::size(kSignals); ++i) {
      ::sigaction(kSignals[i], nullptr, &old_[i]);
      if (old_[i].sa_handler == SIG_IGN) continue;  // e.g. SIGINT of a background job stays ignored
      struct sigaction action {};
      action.sa_handler = note_signal;
      sigemptyset(&action.sa_mask);
      action.sa_flags = 0;  // no SA_RESTART: poll() returns at once with EINTR
      ::sigaction(kSignals[i], &action, nullptr);
    }
  }
  ~SignalGuard() { restore(); }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

  // Puts back the handlers found at construction (also in a child, which must not keep note_signal).
  void restore() const {
    for (std::size_t i = 0; i < std::size(kSignals); ++i) ::sigaction(kSignals[i], &old_[i], nullptr);
  }
  // In a child: the default action, so that a Ctrl-C reaching the whole process group is reported once,
  // by the parent, not once per child. Ignored signals stay ignored.
  void default_in_child() const {
    for (std::size_t i = 0; i < std::size(kSignals); ++i)
      if (old_[i].sa_handler != SIG_IGN) std::signal(kSignals[i], SIG_DFL);
  }

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM};
  struct sigaction old_[std::size(kSignals)]{};
};

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// The child's whole life: replay, write its rows, send its report or the failure, exit without running
// the parent's atexit handlers or destructors.
[[noreturn]] void child_main(int fd, std::size_t index, const PlacementPolicy& policy,
                             const LoadedPlatform& platform, std::span<const Job> jobs,
                             const SimulationConfig& config, const OutputRequest& outputs,
                             SharedProgress* progress) {
  try {
    const ProgressFn report = [progress](std::size_t done, double) { progress->jobs_done.store(done); };
    const PolicyResult result = run_policy(policy, platform, jobs, config, report);
    const std::string bytes =
        encode_report(report_policy(index, result, jobs, config, platform.spec.shape.gpus(), outputs));
    write_all(fd, frame_header(FrameTag::result, bytes.size()));
    write_all(fd, bytes);
    ::close(fd);
    _exit(0);
  } catch (const std::exception& e) {
    write_all(fd, failure_frame(e));
  } catch (...) {
    write_all(fd, failure_frame(std::runtime_error("unknown exception")));
  }
  ::close(fd);
  _exit(1);
}

class ProgressLine {
 public:
  ProgressLine(bool enabled, std::span<const std::unique_ptr<PlacementPolicy>> policies, std::size_t jobs)
      : enabled_(enabled), policies_(policies), jobs_(jobs) {}
  void show(const SharedProgress* progress) const {
    if (!enabled_) return;
    std::string line = "\rnvlsim:";
    for (std::size_t i = 0; i < policies_.size(); ++i)
      line += fmt::format(" {} {}/{}", policies_[i]->name(), progress[i].jobs_done.load(), jobs_);
    std::fputs(line.c_str(), stderr);
  }
  void clear() const {
    if (enabled_) std::fputs("\r\033[K", stderr);
  }

 private:
  bool enabled_;
  std::span<const std::unique_ptr<PlacementPolicy>> policies_;
  std::size_t jobs_;
};

}  // namespace

std::string frame_header(FrameTag tag, std::uint64_t payload_size) {
  std::string header(1, static_cast<char>(tag));
  header.append(reinterpret_cast<const char*>(&payload_size), sizeof payload_size);
  return header;
}

std::string failure_frame(const std::exception& error) {
  const bool input = dynamic_cast<const InputError*>(&error) != nullptr;
  const std::string_view message = error.what();
  return frame_header(input ? FrameTag::input_error : FrameTag::error, message.size()) + std::string(message);
}

PolicyReport child_result(std::string_view policy, std::string_view bytes, int wait_status) {
  const std::optional<Frame> frame = whole_frame(bytes);
  if (frame && frame->tag == FrameTag::input_error) throw InputError(std::string(frame->payload));
  if (frame && frame->tag == FrameTag::error)
    throw std::runtime_error(fmt::format("policy {}: {}", policy, unprefixed(frame->payload)));
  if (WIFSIGNALED(wait_status)) {
    const int signal = WTERMSIG(wait_status);
    throw std::runtime_error(fmt::format("the process replaying policy {} was killed by signal {} ({})",
                                         policy, signal, ::strsignal(signal)));
  }
  if (frame && frame->tag == FrameTag::result) {
    try {
      return decode_report(frame->payload);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(fmt::format("the process replaying policy {} sent a malformed result: {}",
                                           policy, unprefixed(e.what())));
    }
  }
  if (!bytes.empty() && known_tag(bytes[0]))
    throw std::runtime_error(fmt::format("the process replaying policy {} sent a truncated result", policy));
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0)
    throw std::runtime_error(
        fmt::format("the process replaying policy {} exited with status {} without a result", policy,
                    WEXITSTATUS(wait_status)));
  throw std::runtime_error(fmt::format("the process replaying policy {} ended without a result", policy));
}

std::vector<PolicyReport> run_policies(std::span<const std::unique_ptr<PlacementPolicy>> policies,
                                       const LoadedPlatform& platform, std::span<const Job> jobs,
                                       const SimulationConfig& config, const OutputRequest& outputs,
                                       const ProcessOptions& options) {
  const std::size_t n = policies.size();
  // Declared first, destroyed last: the children are stopped while a signal is still only noted.
  const SignalGuard signals;
  Children children(n);
  SharedProgress* progress = children.progress();
  const ProgressLine line(options.show_progress, policies, jobs.size());
  const pid_t parent = ::getpid();

  std::size_t next = 0;
  std::size_t running = 0;
  std::size_t finished = 0;
  std::fflush(nullptr);  // children must not flush the parent's buffered output again
  while (finished < n) {
    while (next < n && running < static_cast<std::size_t>(std::max(1, options.max_parallel))) {
      int fds[2];
      if (::pipe(fds) != 0)
        throw std::runtime_error(system_error("cannot create a pipe to a policy process"));
      const pid_t pid = ::fork();
      if (pid < 0) {
        const std::string message =
            system_error(fmt::format("cannot start the process replaying policy {}", policies[next]->name()));
        ::close(fds[0]);
        ::close(fds[1]);
        throw std::runtime_error(message);
      }
      if (pid == 0) {
        signals.restore();
        signals.default_in_child();
#ifdef __linux__
        // Die with the parent even if it gets no chance to kill this process (SIGKILL, a crash).
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) _exit(1);
#endif
        ::close(fds[0]);
        child_main(fds[1], next, *policies[next], platform, jobs, config, outputs, &progress[next]);
      }
      ::close(fds[1]);
      children[next].pid = pid;
      children[next].fd = fds[0];
      ++next;
      ++running;
    }
    std::vector<pollfd> polls;
    std::vector<std::size_t> who;
    for (std::size_t i = 0; i < next; ++i)
      if (children[i].fd >= 0) {
        polls.push_back({children[i].fd, POLLIN, 0});
        who.push_back(i);
      }
    if (stop_signal == 0 && ::poll(polls.data(), polls.size(), 500) < 0 && errno != EINTR)
      throw std::runtime_error(system_error("poll on the policy processes failed"));
    if (const int signal = stop_signal; signal != 0) {
      children.stop();
      if (outputs.parts) outputs.parts->remove();  // the process may end before any destructor runs
      line.clear();
      signals.restore();
      ::raise(signal);  // ends the process unless the handler found at the start says otherwise
      throw std::runtime_error(fmt::format("interrupted by signal {} ({})", signal, ::strsignal(signal)));
    }
    line.show(progress);
    for (std::size_t k = 0; k < polls.size(); ++k) {
      if (polls[k].revents == 0) continue;
      Child& c = children[who[k]];
      char buf[65536];
      const ssize_t got = ::read(c.fd, buf, sizeof buf);
      if (got > 0) {
        c.bytes.append(buf, static_cast<std::size_t>(got));
        continue;
      }
      if (got < 0 && errno == EINTR) continue;
      children.close_pipe(c);
      children.reap(c);
      --running;
      ++finished;
    }
  }
  line.clear();

  std::vector<PolicyReport> reports;
  for (std::size_t i = 0; i < n; ++i)
    reports.push_back(child_result(policies[i]->name(), children[i].bytes, children[i].status));
  return reports;
}

}  // namespace nvlsim
