// nvlsim-bench: fixed scenarios (the generated job mix at load 0.9 unless --load says otherwise, fixed seed,
// on nvl72x8/x64/x256/x1000, without failures and with Llama 3's failure rates), each replayed by each policy
// as `nvlsim` replays it (nvlsim::replay: the policies built as for `nvlsim`, a child process per policy, the
// result sent back and decoded). One line per scenario and policy, then a line `all` for the policies
// replayed together as `nvlsim --policy a,b,c` does by default (two at once); all of them in bench.json.
// Without --scenario or --quick, the scenarios --list marks "default".
//
//   nvlsim-bench [--quick] [--scenario NAME,...] [--policy NAME,...] [--request-shape gpus|nodes|auto]
//                [--cpus-per-gpu K] [--load L] [--out bench.json] [--list]
//
// Jobs ask as `nvlsim` asks by default (--request-shape auto, --cpus-per-gpu 0) unless told otherwise.
//
// Timed apart, so that the per-policy figures hold only the replay: writing and loading the platform
// (once per rack count) and generating the trace (once per scenario).

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/cluster_shape.hpp"
#include "models/read_number.hpp"
#include "platforms/platform_writer.hpp"
#include "schedulers/job_request.hpp"
#include "sim/core/simulation_config.hpp"
#include "sim/engine_setup.hpp"
#include "sim/failure_setup.hpp"
#include "sim/replay.hpp"
#include "workloads/builtin_mix.hpp"
#include "workloads/job_class.hpp"

namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr double kLoad = 0.9;
constexpr std::uint64_t kSeed = 42;

struct Scenario {
  std::string name;
  int racks;
  int jobs;
  bool failures = false;  // Llama 3's rates (--failures llama3), seeded like the trace
};

// The matrix: 10k, 100k, 300k and 1M jobs on 8, 64, 256 and 1000 racks, without failures and
// with them.
std::vector<Scenario> full_matrix() {
  std::vector<Scenario> out;
  for (bool failures : {false, true})
    for (int racks : {8, 64, 256, 1000})
      for (int jobs : {10000, 100000, 300000, 1000000})
        out.push_back(
            {fmt::format("x{}-{}k{}", racks, jobs / 1000, failures ? "-fail" : ""), racks, jobs, failures});
  return out;
}

// What a run without --scenario replays (the `bench` target): the matrix without its million-job
// scenarios, which run by name only: they would take the run from minutes to hours (per-gpu alone
// replays x1000-1000k in about 12 minutes; docs/performance.md).
bool in_default_run(const Scenario& s) {
  return s.jobs < 1000000;
}

std::vector<Scenario> default_run() {
  std::vector<Scenario> out;
  for (Scenario& s : full_matrix())
    if (in_default_run(s)) out.push_back(std::move(s));
  return out;
}

// A check in seconds that the bench and the policies still run.
std::vector<Scenario> quick_set() {
  return {{"x8-2k", 8, 2000}, {"x64-4k", 64, 4000}, {"x64-4k-fail", 64, 4000, true}};
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The 1, 5 and 15 minute load averages: wall times mean little on a machine busy with other work.
std::array<double, 3> load_average() {
  std::array<double, 3> avg{-1, -1, -1};
  getloadavg(avg.data(), 3);
  return avg;
}

double mb(long kb) {
  return static_cast<double>(kb) / 1024.0;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= list.size()) {
    const std::size_t comma = std::min(list.find(',', from), list.size());
    if (comma > from) out.push_back(list.substr(from, comma - from));
    from = comma + 1;
  }
  return out;
}

std::string read_all(int fd) {
  std::string bytes;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  return bytes;
}

// Runs `body` in a child process and returns what it wrote to the pipe, or nullopt when it failed.
// A child per measurement: getrusage(RUSAGE_CHILDREN) is a maximum over all children ever waited for,
// so only a fresh process reports the peak of one run alone.
template <class Body>
std::optional<std::string> in_child(const Body& body) {
  int fds[2];
  if (::pipe(fds) != 0) return std::nullopt;
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return std::nullopt;
  if (pid == 0) {
    ::close(fds[0]);
    int status = 0;
    try {
      const std::string out = body();
      for (std::string_view rest = out; !rest.empty();) {
        const ssize_t n = ::write(fds[1], rest.data(), rest.size());
        if (n <= 0) _exit(3);
        rest.remove_prefix(static_cast<std::size_t>(n));
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "nvlsim-bench: %s\n", e.what());
      status = 1;
    }
    ::close(fds[1]);
    _exit(status);  // no atexit handlers or destructors of the parent's objects
  }
  ::close(fds[1]);
  std::string bytes = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return bytes;
}

// Policies on one trace, measured in a fresh process that calls replay() as `nvlsim` does; its children
// replay and write their rows (into a scratch folder, not joined), `parallel` at once. wall_s covers the
// whole call (building the policies, fork, replay, rows, the summaries and their way back); the replay
// figures are the first policy's when there is one, else the largest.
Json run_set(const std::vector<std::string>& policy_names, int parallel,
             const nvlsim::LoadedPlatform& platform, const std::vector<nvlsim::Job>& jobs,
             const nvlsim::SimulationConfig& config) {
  nvlsim::PolicyRequest policies;
  policies.specs = policy_names;
  const nvlsim::PartFiles parts(std::filesystem::temp_directory_path());
  const auto t0 = Clock::now();
  const auto results =
      nvlsim::replay({platform, "built-in platform", jobs, policies, config, {parallel, false}, {0, &parts}});
  const double wall = seconds_since(t0);
  rusage child{};
  rusage self{};
  getrusage(RUSAGE_CHILDREN, &child);
  getrusage(RUSAGE_SELF, &self);
  double replay = 0;
  for (const auto& r : results) replay = std::max(replay, r.wall_seconds);
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return Json{{"wall_s", wall},
              {"replay_s", replay},
              // CPU time of the replaying child: steadier than wall time on a machine shared with other work.
              {"replay_cpu_s", seconds(child.ru_utime) + seconds(child.ru_stime)},
              {"replay_sys_s", seconds(child.ru_stime)},
              // A first touch of a page each: in a virtual machine a fault can cost microseconds.
              {"replay_page_faults", child.ru_minflt + child.ru_majflt},
              // per policy: the jobs of every policy's replay over the wall time of all of them
              {"jobs_per_s", static_cast<double>(jobs.size() * results.size()) / wall},
              {"replay_rss_mb", mb(child.ru_maxrss)},
              {"parent_rss_mb", mb(self.ru_maxrss)},
              {"samples", results.front().samples},
              {"rejected", results.front().summary.nb_jobs_rejected},
              {"killed", results.front().summary.failures.jobs_killed}};
}

// Everything on one rack count, in one process: SimGrid loads one platform per process, and the
// loaded platform serves every trace because only the children run the engine.
// How jobs ask for resources, as nvlsim's --request-shape and --cpus-per-gpu (the defaults are nvlsim's),
// and the offered load of the generated mix.
struct RequestSettings {
  nvlsim::RequestShaping shaping = nvlsim::SimulationConfig{}.request_shaping;
  int cpus_per_gpu = nvlsim::SimulationConfig{}.cpus_per_gpu;
  double load = kLoad;
};

Json run_racks(int racks, const std::vector<Scenario>& scenarios, const std::vector<std::string>& policies,
               const RequestSettings& requests) {
  Json out{{"racks", racks}};
  auto t0 = Clock::now();
  const std::string xml = nvlsim::platform_xml(nvlsim::nvl72_platform(racks));
  out["write_platform_s"] = seconds_since(t0);
  t0 = Clock::now();
  auto engine = nvlsim::make_engine();
  const auto platform = nvlsim::load_platform_text(*engine, xml);
  out["load_platform_s"] = seconds_since(t0);
  out["gpus"] = platform.spec.shape.gpus();
  std::printf("x%d: %d GPUs, platform written in %.2f s, loaded in %.2f s\n", racks,
              platform.spec.shape.gpus(), out["write_platform_s"].get<double>(),
              out["load_platform_s"].get<double>());

  Json runs = Json::array();
  for (const Scenario& sc : scenarios) {
    nvlsim::SimulationConfig config;
    config.classes = nvlsim::builtin_class_table().classes;  // as `nvlsim` replays the built-in mix
    config.request_shaping = requests.shaping;
    config.cpus_per_gpu = requests.cpus_per_gpu;
    if (sc.failures) config.failures = nvlsim::failure_config({"llama3", 1, kSeed}, platform);
    t0 = Clock::now();
    const auto jobs =
        nvlsim::builtin_mix(nvlsim::MixOptions{sc.jobs, platform.spec.shape.gpus(), requests.load, kSeed});
    const double generate = seconds_since(t0);
    // Each policy alone, then all of them together as `nvlsim` runs them by default.
    std::vector<std::vector<std::string>> sets;
    for (const std::string& policy : policies) sets.push_back({policy});
    if (policies.size() > 1) sets.push_back(policies);
    for (const auto& set : sets) {
      const std::string policy = set.size() == 1 ? set.front() : "all";
      const int parallel = set.size() == 1 ? 1 : nvlsim::ProcessOptions{}.max_parallel;
      Json row{{"scenario", sc.name},  {"racks", racks},        {"gpus", platform.spec.shape.gpus()},
               {"jobs", sc.jobs},      {"policy", policy},      {"policies", set},
               {"parallel", parallel}, {"generate_s", generate}};
      const auto measured = in_child([&] { return run_set(set, parallel, platform, jobs, config).dump(); });
      if (!measured) {
        std::fprintf(stderr, "nvlsim-bench: %s %s failed\n", sc.name.c_str(), policy.c_str());
        continue;
      }
      row.update(Json::parse(*measured));
      row["load_1min"] = load_average()[0];
      std::printf("%-16s %-10s %7d %8.2f %8.2f %8.2f %10.0f %10.1f %10.1f %8zu %8ld\n", sc.name.c_str(),
                  policy.c_str(), sc.jobs, row["wall_s"].get<double>(), row["replay_s"].get<double>(),
                  row["replay_cpu_s"].get<double>(), row["jobs_per_s"].get<double>(),
                  row["replay_rss_mb"].get<double>(), row["parent_rss_mb"].get<double>(),
                  row["samples"].get<std::size_t>(), row["replay_page_faults"].get<long>());
      std::fflush(stdout);
      runs.push_back(std::move(row));
    }
  }
  out["runs"] = std::move(runs);
  return out;
}

int usage() {
  std::fprintf(
      stderr,
      "usage: nvlsim-bench [--quick] [--scenario NAME,...] [--policy NAME,...] "
      "[--request-shape gpus|nodes|auto] [--cpus-per-gpu K] [--load L] [--out bench.json] [--list]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  bool list = false;
  std::string out = "bench.json";
  std::vector<std::string> policies = {"per-gpu", "block", "sub-block"};
  std::vector<std::string> wanted;
  RequestSettings requests;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--quick") {
      quick = true;
    } else if (a == "--list") {
      list = true;
    } else if (a == "--out" && has_value) {
      out = argv[++i];
    } else if (a == "--policy" && has_value) {
      policies = split(argv[++i]);
    } else if (a == "--scenario" && has_value) {
      wanted = split(argv[++i]);
    } else if (a == "--request-shape" && has_value) {
      if (!nvlsim::parse_request_shaping(argv[++i], requests.shaping)) return usage();
    } else if (a == "--cpus-per-gpu" && has_value) {
      // A tray's 144 cores over its 4 GPUs, as nvlsim checks on the bench's NVL72 platforms.
      const auto cpus = nvlsim::read_number<int>(argv[++i]);
      const nvlsim::ClusterShape shape;
      if (!cpus || cpus.value < 0 || cpus.value > shape.cpus_per_tray / shape.gpus_per_tray) return usage();
      requests.cpus_per_gpu = cpus.value;
    } else if (a == "--load" && has_value) {
      // Offered GPU-hours over capacity: below 0.9 the queue of a policy that slows its jobs stays short.
      const auto load = nvlsim::read_number<double>(argv[++i]);
      if (!load || !(load.value > 0 && load.value <= 2)) return usage();
      requests.load = load.value;
    } else {
      return usage();
    }
  }
  std::vector<Scenario> known = full_matrix();
  for (Scenario& s : quick_set()) known.push_back(std::move(s));
  if (list) {
    const std::size_t matrix = full_matrix().size();
    for (std::size_t i = 0; i < known.size(); ++i) {
      const Scenario& s = known[i];
      const char* run = i >= matrix ? "--quick" : in_default_run(s) ? "default" : "by name only";
      std::printf("%-16s %4d racks %7d jobs  %s\n", s.name.c_str(), s.racks, s.jobs, run);
    }
    return 0;
  }
  std::vector<Scenario> scenarios = quick ? quick_set() : default_run();
  if (!wanted.empty()) {
    scenarios.clear();
    for (const std::string& name : wanted) {
      const auto it =
          std::find_if(known.begin(), known.end(), [&](const Scenario& s) { return s.name == name; });
      if (it == known.end()) {
        std::fprintf(stderr, "nvlsim-bench: no scenario '%s' (see --list)\n", name.c_str());
        return 2;
      }
      scenarios.push_back(*it);
    }
  }

  const auto load_before = load_average();
  std::printf("load average %.2f %.2f %.2f on %ld cores\n", load_before[0], load_before[1], load_before[2],
              sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("%-16s %-10s %7s %8s %8s %8s %10s %10s %10s %8s %8s\n", "scenario", "policy", "jobs", "wall_s",
              "replay_s", "cpu_s", "jobs_per_s", "replay_mb", "parent_mb", "samples", "faults");
  Json platforms = Json::array();
  Json runs = Json::array();
  std::set<int> rack_counts;
  for (const Scenario& s : scenarios) rack_counts.insert(s.racks);
  bool failed = false;
  for (int racks : rack_counts) {
    std::vector<Scenario> mine;
    for (const Scenario& s : scenarios)
      if (s.racks == racks) mine.push_back(s);
    const auto part = in_child([&] { return run_racks(racks, mine, policies, requests).dump(); });
    if (!part) {
      std::fprintf(stderr, "nvlsim-bench: the runs on %d racks failed\n", racks);
      failed = true;
      continue;
    }
    Json p = Json::parse(*part);
    for (auto& row : p["runs"]) runs.push_back(std::move(row));
    p.erase("runs");
    platforms.push_back(std::move(p));
  }
  Json result{{"load", requests.load},
              {"seed", kSeed},
              {"request_shape", std::string(nvlsim::request_shaping_name(requests.shaping))},
              {"cpus_per_gpu", requests.cpus_per_gpu},
              {"cores", static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))},
              {"load_average_before", load_before},
              {"load_average_after", load_average()},
              {"platforms", std::move(platforms)},
              {"runs", std::move(runs)}};
  std::ofstream(out) << result.dump(2) << '\n';
  return failed ? 1 : 0;
}
