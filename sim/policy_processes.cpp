#include "sim/policy_processes.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "sim/result_codec.hpp"

namespace nvlsim {

namespace {

// Written by children, read by the parent for the progress line.
struct SharedProgress {
  std::atomic<std::uint64_t> jobs_done{0};
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::string bytes;
  bool sized = false;  // bytes has room for the whole announced result
};

// A result is 'R', its length as 8 bytes, then encode()'s bytes; a failure is 'E' and a message.
constexpr std::size_t kResultHeader = 1 + sizeof(std::uint64_t);

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// The child's whole life: replay, send the result or the failure, exit without running the parent's
// atexit handlers or destructors.
[[noreturn]] void child_main(int fd, const PlacementPolicy& policy, const LoadedPlatform& platform,
                             std::span<const Job> jobs, const SimulationConfig& config,
                             SharedProgress* progress) {
  try {
    const ProgressFn report = [progress](std::size_t done, double) { progress->jobs_done.store(done); };
    const PolicyResult result = run_policy(policy, platform, jobs, config, report);
    const std::string bytes = encode(result);
    const std::uint64_t size = bytes.size();
    write_all(fd, "R");
    write_all(fd, std::string_view(reinterpret_cast<const char*>(&size), sizeof size));
    write_all(fd, bytes);
    ::close(fd);
    _exit(0);
  } catch (const std::exception& e) {
    write_all(fd, "E");
    write_all(fd, e.what());
    ::close(fd);
    _exit(1);
  }
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

std::vector<PolicyResult> run_policies(std::span<const std::unique_ptr<PlacementPolicy>> policies,
                                       const LoadedPlatform& platform, std::span<const Job> jobs,
                                       const SimulationConfig& config, const ProcessOptions& options) {
  const std::size_t n = policies.size();
  void* shared =
      ::mmap(nullptr, sizeof(SharedProgress) * n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) throw std::runtime_error("nvlsim: cannot map shared memory for progress");
  auto* progress = new (shared) SharedProgress[n];
  const ProgressLine line(options.show_progress, policies, jobs.size());

  std::vector<Child> children(n);
  std::size_t next = 0;
  std::size_t running = 0;
  std::size_t finished = 0;
  std::fflush(nullptr);  // children must not flush the parent's buffered output again
  while (finished < n) {
    while (next < n && running < static_cast<std::size_t>(std::max(1, options.max_parallel))) {
      int fds[2];
      if (::pipe(fds) != 0) throw std::runtime_error("nvlsim: pipe failed");
      const pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error("nvlsim: fork failed");
      if (pid == 0) {
        ::close(fds[0]);
        child_main(fds[1], *policies[next], platform, jobs, config, &progress[next]);
      }
      ::close(fds[1]);
      children[next] = {pid, fds[0], {}};
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
    if (::poll(polls.data(), polls.size(), 500) < 0 && errno != EINTR)
      throw std::runtime_error("nvlsim: poll failed");
    line.show(progress);
    for (std::size_t k = 0; k < polls.size(); ++k) {
      if (polls[k].revents == 0) continue;
      Child& c = children[who[k]];
      char buf[65536];
      const ssize_t got = ::read(c.fd, buf, sizeof buf);
      if (got > 0) {
        c.bytes.append(buf, static_cast<std::size_t>(got));
        if (!c.sized && c.bytes.size() >= kResultHeader && c.bytes[0] == 'R') {
          std::uint64_t size = 0;
          std::memcpy(&size, c.bytes.data() + 1, sizeof size);
          c.bytes.reserve(kResultHeader + size);
          c.sized = true;
        }
        continue;
      }
      if (got < 0 && errno == EINTR) continue;
      ::close(c.fd);
      c.fd = -1;
      int status = 0;
      ::waitpid(c.pid, &status, 0);
      --running;
      ++finished;
    }
  }
  line.clear();
  ::munmap(shared, sizeof(SharedProgress) * n);

  std::vector<PolicyResult> results;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& b = children[i].bytes;
    if (b.empty() || (b[0] != 'R' && b[0] != 'E'))
      throw std::runtime_error(
          fmt::format("nvlsim: the process replaying policy {} died without a result", policies[i]->name()));
    if (b[0] == 'E') throw std::runtime_error(fmt::format("policy {}: {}", policies[i]->name(), b.substr(1)));
    std::uint64_t size = 0;
    if (b.size() >= kResultHeader) std::memcpy(&size, b.data() + 1, sizeof size);
    if (b.size() < kResultHeader || b.size() - kResultHeader != size)
      throw std::runtime_error(fmt::format("nvlsim: the process replaying policy {} sent a truncated result",
                                           policies[i]->name()));
    results.push_back(decode(std::string_view(b).substr(kResultHeader)));
  }
  return results;
}

}  // namespace nvlsim
