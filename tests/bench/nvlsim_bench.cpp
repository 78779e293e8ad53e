// nvlsim-bench: fixed scenarios timed end to end (trace generation excluded), one line per scenario and
// policy: wall time, jobs per second, peak memory of the replaying process. Writes bench.json.
//
//   nvlsim-bench [--quick] [--platforms DIR] [--out bench.json]
//
// Scenarios are generated with fixed seeds at run time (nothing large is committed).

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platforms/platform_writer.hpp"
#include "schedulers/policy_registry.hpp"
#include "sim/engine_setup.hpp"
#include "sim/policy_processes.hpp"
#include "workloads/builtin_mix.hpp"

namespace {

struct Scenario {
  std::string name;
  int racks;
  int jobs;
};

long children_peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return usage.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string out = "bench.json";
  std::vector<std::string> policies = {"per-gpu", "block", "sub-block"};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--out" && i + 1 < argc) {
      out = argv[++i];
    } else if (a == "--policy" && i + 1 < argc) {
      policies = {argv[++i]};
    } else {
      std::fprintf(stderr, "usage: nvlsim-bench [--quick] [--policy NAME] [--out bench.json]\n");
      return 2;
    }
  }
  std::vector<Scenario> scenarios;
  if (quick) {
    scenarios = {{"x8-2k", 8, 2000}, {"x64-4k", 64, 4000}};
  } else {
    scenarios = {{"x8-10k", 8, 10000},
                 {"x64-10k", 64, 10000},
                 {"x64-100k", 64, 100000},
                 {"x64-300k", 64, 300000},
                 {"x256-100k", 256, 100000}};
  }
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::printf("%-12s %-10s %8s %9s %11s %12s\n", "scenario", "policy", "jobs", "wall_s", "jobs_per_s",
              "peak_rss_mb");
  for (const auto& sc : scenarios) {
    // Each scenario in its own process: a SimGrid engine loads one platform per process.
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) try {
        const auto file =
            std::filesystem::temp_directory_path() / fmt::format("nvlsim-bench-{}.xml", getpid());
        std::ofstream(file) << nvlsim::platform_xml(nvlsim::nvl72_platform(sc.racks));
        auto engine = nvlsim::make_engine();
        const auto platform = nvlsim::load_platform(*engine, file);
        std::filesystem::remove(file);
        const auto jobs =
            nvlsim::builtin_mix(nvlsim::MixOptions{sc.jobs, platform.spec.shape.gpus(), 0.9, 42});
        nlohmann::ordered_json lines = nlohmann::ordered_json::array();
        for (const auto& name : policies) {
          std::vector<std::unique_ptr<nvlsim::PlacementPolicy>> one;
          one.push_back(nvlsim::make_policy(name, nvlsim::PolicyContext{platform.spec.shape}));
          const auto t0 = std::chrono::steady_clock::now();
          const auto res = nvlsim::run_policies(one, platform, jobs, nvlsim::SimulationConfig{},
                                                nvlsim::ProcessOptions{1, false});
          const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          const double rss_mb = children_peak_rss_kb() / 1024.0;
          std::printf("%-12s %-10s %8d %9.2f %11.0f %12.1f\n", sc.name.c_str(), name.c_str(), sc.jobs, wall,
                      sc.jobs / wall, rss_mb);
          std::fflush(stdout);
          lines.push_back({{"scenario", sc.name},
                           {"policy", name},
                           {"jobs", sc.jobs},
                           {"wall_s", wall},
                           {"jobs_per_s", sc.jobs / wall},
                           {"peak_rss_mb", rss_mb}});
        }
        std::ofstream(out + "." + sc.name) << lines.dump();
        _exit(0);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "nvlsim-bench: %s: %s\n", sc.name.c_str(), e.what());
        _exit(1);
      }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      std::fprintf(stderr, "nvlsim-bench: scenario %s failed (status %d)\n", sc.name.c_str(), status);
    std::ifstream part(out + "." + sc.name);
    if (part) {
      for (auto& line : nlohmann::ordered_json::parse(part)) results.push_back(line);
      std::filesystem::remove(out + "." + sc.name);
    }
  }
  std::ofstream(out) << results.dump(2) << '\n';
  return 0;
}
