// The child processes run_policies forks, one per policy: how a child's failure reaches the parent (its
// kind and message, or the signal that killed it), that no child outlives the call and that the parts
// the children wrote do not outlive the run.

#include <catch2/catch.hpp>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include "child_process.hpp"
#include "models/input_error.hpp"
#include "nvlsim_process.hpp"
#include "platforms/platform_loader.hpp"
#include "platforms/platform_writer.hpp"
#include "schedulers/policy_registry.hpp"
#include "sim/engine_setup.hpp"
#include "sim/policy_processes.hpp"

using namespace nvlsim;
using namespace nvlsim::test;

namespace {

// A policy that fails as soon as it is asked to place a job, in the child replaying it.
class FailingPolicy final : public PlacementPolicy {
 public:
  enum class How { input_error, runtime_error, sigkill, sigterm_parent_then_hang };
  FailingPolicy(std::string name, How how) : name_(std::move(name)), how_(how) {}
  const std::string& name() const override { return name_; }
  std::optional<Allocation> place(const ClusterState&, const JobRequest&) const override {
    switch (how_) {
      case How::input_error:
        throw InputError("topology.conf:7: unknown node 'gpu-99'");
      case How::runtime_error:
        throw std::runtime_error("nvlsim: jobs wait but nothing runs or arrives");
      case How::sigkill:
        ::raise(SIGKILL);
        break;
      case How::sigterm_parent_then_hang:
        ::kill(::getppid(), SIGTERM);
        for (;;) ::pause();
    }
    return std::nullopt;
  }

 private:
  std::string name_;
  How how_;
};

using Policies = std::vector<std::unique_ptr<PlacementPolicy>>;

std::size_t parts_in(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    n += entry.path().filename().string().starts_with(".nvlsim-part-");
  return n;
}

// In a child process (SimGrid allows one engine per process): loads a one-rack platform, replays four
// 4-GPU jobs under the policies make() returns with run_policies, their rows written as parts beside the
// platform file, and prints how the call ended ("ok N, P parts", "input MESSAGE" or "error MESSAGE"),
// whether any of its children was left unreaped and whether parts were left once the run's PartFiles
// went. Returns that text and the child's wait status.
ChildResult replay_in_child(const std::string& name,
                            const std::function<Policies(const LoadedPlatform&)>& make) {
  const auto dir = scratch_dir("policy-processes-" + name);
  const auto file = dir / "platform.xml";
  std::ofstream(file) << platform_xml(nvl72_platform(1));
  return run_in_child([&](std::ostream& out) {
    try {
      auto engine = make_engine();
      const LoadedPlatform platform = load_platform(*engine, file);
      std::vector<Job> jobs(4);
      for (std::size_t j = 0; j < jobs.size(); ++j)
        jobs[j] = {
            static_cast<std::int64_t>(j + 1), 10.0 * static_cast<double>(j), 4, INFINITY, 100, j + 1, 0};
      SimulationConfig config;
      config.classes = {JobClass{"hpc"}};
      const Policies policies = make(platform);
      const PartFiles parts(dir);
      const auto reports = run_policies(policies, platform, jobs, config, OutputRequest{0, &parts, 0, false},
                                        ProcessOptions{2, false});
      out << "ok " << reports.size() << ", " << parts_in(dir) << " parts\n";
    } catch (const InputError& e) {
      out << "input " << e.what() << "\n";
    } catch (const std::exception& e) {
      out << "error " << e.what() << "\n";
    }
    int status = 0;
    const pid_t left = ::waitpid(-1, &status, WNOHANG);
    out << (left == -1 && errno == ECHILD ? "no children left" : "children left") << "\n";
    out << (parts_in(dir) == 0 ? "no parts left" : "parts left") << "\n";
  });
}

Policies good_and(std::unique_ptr<PlacementPolicy> failing, const LoadedPlatform& platform) {
  Policies policies;
  policies.push_back(make_policy("per-gpu", PolicyContext{platform.spec.shape}));
  policies.push_back(std::move(failing));
  return policies;
}

}  // namespace

TEST_CASE("policies replayed in child processes give their results", "[processes]") {
  const auto [text, status] = replay_in_child("good", [](const LoadedPlatform& platform) {
    Policies policies;
    for (const char* spec : {"per-gpu", "block"})
      policies.push_back(make_policy(spec, PolicyContext{platform.spec.shape}));
    return policies;
  });
  REQUIRE(WIFEXITED(status));
  // jobs.csv, attempts.csv and timeseries.csv of each policy.
  CHECK(text == "ok 2, 6 parts\nno children left\nno parts left\n");
}

TEST_CASE("an input error in a child reaches the parent as an InputError with its message once",
          "[processes][errors]") {
  const auto [text, status] = replay_in_child("input-error", [](const LoadedPlatform& platform) {
    return good_and(std::make_unique<FailingPolicy>("bad", FailingPolicy::How::input_error), platform);
  });
  REQUIRE(WIFEXITED(status));
  CHECK(text == "input topology.conf:7: unknown node 'gpu-99'\nno children left\nno parts left\n");
}

TEST_CASE("another exception in a child names the policy, without a second nvlsim: prefix",
          "[processes][errors]") {
  const auto [text, status] = replay_in_child("runtime-error", [](const LoadedPlatform& platform) {
    return good_and(std::make_unique<FailingPolicy>("bad", FailingPolicy::How::runtime_error), platform);
  });
  REQUIRE(WIFEXITED(status));
  CHECK(text == "error policy bad: jobs wait but nothing runs or arrives\nno children left\nno parts left\n");
}

TEST_CASE("a child killed by a signal is reported with the signal", "[processes][errors]") {
  const auto [text, status] = replay_in_child("sigkill", [](const LoadedPlatform& platform) {
    return good_and(std::make_unique<FailingPolicy>("block", FailingPolicy::How::sigkill), platform);
  });
  REQUIRE(WIFEXITED(status));
  CHECK(text ==
        "error the process replaying policy block was killed by signal 9 (Killed)\nno children left\nno "
        "parts left\n");
}

TEST_CASE("SIGTERM to the parent kills and reaps its children, then ends the parent", "[processes]") {
  // Orphans come to this process instead of init, so a child the parent did not reap shows up here.
  REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
  const auto [text, status] = replay_in_child("sigterm", [](const LoadedPlatform& platform) {
    return good_and(std::make_unique<FailingPolicy>("hang", FailingPolicy::How::sigterm_parent_then_hang),
                    platform);
  });
  std::vector<pid_t> orphans;
  for (int i = 0; i < 20; ++i) {  // an orphan killed at its parent's death may take a moment to show
    int ignored = 0;
    const pid_t left = ::waitpid(-1, &ignored, WNOHANG);
    if (left == -1) break;
    if (left > 0) orphans.push_back(left);
    ::usleep(50'000);
  }
  // Anything still running is ours to end.
  std::ifstream children("/proc/self/task/" + std::to_string(::getpid()) + "/children");
  for (pid_t p; children >> p;) {
    ::kill(p, SIGKILL);
    ::waitpid(p, nullptr, 0);
    orphans.push_back(p);
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  INFO(text);
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(orphans.empty());
  const auto dir = scratch_root() / "policy-processes-sigterm";
  CHECK(parts_in(dir) == 0);
}

namespace {

// The wait status of a real child that ends as `end` says.
int wait_status_of(void (*end)()) {
  return run_in_child([end](std::ostream&) { end(); }).status;
}

int exited_with(int code) {
  static int wanted = 0;
  wanted = code;
  return wait_status_of([] { ::_exit(wanted); });
}

}  // namespace

TEST_CASE("a child's failure frame keeps the InputError kind and the message, once", "[processes][errors]") {
  const int failed = exited_with(1);
  SECTION("input error: rethrown as InputError, message unchanged") {
    const std::string frame = failure_frame(InputError("topology.conf:7: unknown node 'gpu-99'"));
    REQUIRE(frame[0] == 'I');
    try {
      child_result("block", frame, failed);
      FAIL("no exception");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()) == "topology.conf:7: unknown node 'gpu-99'");
    }
  }
  SECTION("any other exception: std::runtime_error naming the policy, its own nvlsim: prefix dropped") {
    const std::string frame =
        failure_frame(std::logic_error("nvlsim: jobs wait but nothing runs or arrives"));
    REQUIRE(frame[0] == 'E');
    try {
      child_result("block", frame, failed);
      FAIL("no exception");
    } catch (const InputError&) {
      FAIL("an InputError");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "policy block: jobs wait but nothing runs or arrives");
    }
  }
  SECTION("a frame cut short is a truncated result, not a message") {
    const std::string frame = failure_frame(InputError("topology.conf:7: unknown node 'gpu-99'"));
    CHECK_THROWS_WITH(child_result("block", frame.substr(0, frame.size() - 1), exited_with(3)),
                      "the process replaying policy block sent a truncated result");
  }
}

TEST_CASE("a child that ends without a frame is reported with its signal or exit status",
          "[processes][errors]") {
  CHECK_THROWS_WITH(child_result("block", "", wait_status_of([] { ::raise(SIGKILL); })),
                    "the process replaying policy block was killed by signal 9 (Killed)");
  CHECK_THROWS_WITH(child_result("block", "", wait_status_of([] { ::raise(SIGTERM); })),
                    "the process replaying policy block was killed by signal 15 (Terminated)");
  CHECK_THROWS_WITH(child_result("block", "", exited_with(3)),
                    "the process replaying policy block exited with status 3 without a result");
}

TEST_CASE("a whole result frame decodes to the child's report", "[processes]") {
  PolicyReport in;
  in.summary.policy = "sub-block:segment_rules=128>16/0>1";
  in.summary.nb_jobs = 7;
  in.summary.mean_slowdown = 1.0 / 3.0;
  in.summary.bw_utilization = NAN;
  in.wall_seconds = 2.5;
  in.samples = 12;
  const std::string bytes = encode_report(in);
  const std::string frame = frame_header(FrameTag::result, bytes.size()) + bytes;
  const PolicyReport out = child_result("block", frame, exited_with(0));
  CHECK(out.summary.policy == in.summary.policy);
  CHECK(out.summary.nb_jobs == 7);
  CHECK(out.summary.mean_slowdown == 1.0 / 3.0);
  CHECK(std::isnan(out.summary.bw_utilization));
  CHECK(out.wall_seconds == 2.5);
  CHECK(out.samples == 12);
  CHECK_THROWS_WITH(child_result("block", frame.substr(0, frame.size() - 1), exited_with(0)),
                    "the process replaying policy block sent a truncated result");
  CHECK_THROWS_WITH(child_result("block", frame + "x", exited_with(0)),
                    "the process replaying policy block sent a truncated result");
  const std::string cut = bytes.substr(0, bytes.find('\n'));
  CHECK_THROWS_WITH(child_result("block", frame_header(FrameTag::result, cut.size()) + cut, exited_with(0)),
                    "the process replaying policy block sent a malformed result: no summary row");
}
