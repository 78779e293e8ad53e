#include "sim/cli/sweep_steps.hpp"

#include <fmt/format.h>

#include <optional>
#include <string_view>

#include "models/input_error.hpp"
#include "models/system_catalog.hpp"
#include "platforms/platform_spec.hpp"
#include "sim/cli/cli_app.hpp"
#include "sim/cli/shipped_names.hpp"
#include "sim/cli/sweep_keys.hpp"

namespace nvlsim {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMixPrefix = "mix.";
constexpr std::string_view kPlatformPrefix = "platform.";

// GPUs of the platform the run replays on, for a generated trace without mix.gpus.
int platform_gpus(const CellSettings& cell, const std::vector<std::string>& platform_step) {
  if (!platform_step.empty()) {
    const PlatformOptions p = parse_cli(platform_step).platform;
    return system_platform(system_named(p.system), p.racks).shape.gpus();
  }
  const auto platform = cell.find("platform");
  const std::optional<int> racks =
      platform == cell.end() ? kDefaultRacks : builtin_platform_racks(platform->second);
  if (!racks)
    throw InputError(fmt::format("mix.gpus: required when the platform is a file ({})", platform->second));
  return nvl72_platform(*racks).shape.gpus();
}

}  // namespace

RunSteps run_steps(const CellSettings& cell, std::span<const std::string> policies, std::uint64_t seed,
                   const fs::path& folder) {
  const GridKeys keys = sweep_grid_keys();
  std::vector<std::string> platform, mix, run;
  for (const auto& [key, value] : cell) {
    std::vector<std::string>* args = &run;
    std::string name = key;
    for (const auto& [prefix, step] : {std::pair{kMixPrefix, &mix}, std::pair{kPlatformPrefix, &platform}})
      if (key.starts_with(prefix)) {
        args = step;
        name.erase(0, prefix.size());
      }
    if (keys.find(key)->takes_value)
      args->push_back(fmt::format("--{}={}", name, value));
    else if (value == "true")
      args->push_back("--" + name);
  }
  const std::string seed_flag = fmt::format("--seed={}", seed);
  RunSteps steps;
  if (!platform.empty()) {
    const fs::path file = folder / "platform.xml";
    steps.platform = {"platform"};
    steps.platform.insert(steps.platform.end(), platform.begin(), platform.end());
    steps.platform.insert(steps.platform.end(), {"-o", file.string()});
    run.push_back("--platform=" + file.string());
  }
  if (!mix.empty()) {
    const fs::path file = folder / "trace.swf";
    steps.mix = {"workload", "mix"};
    steps.mix.insert(steps.mix.end(), mix.begin(), mix.end());
    if (!cell.contains("mix.gpus"))
      steps.mix.push_back(fmt::format("--gpus={}", platform_gpus(cell, steps.platform)));
    steps.mix.insert(steps.mix.end(), {seed_flag, "-o", file.string()});
    run.push_back("--trace=" + file.string());
  }
  steps.run = {"run"};
  steps.run.insert(steps.run.end(), run.begin(), run.end());
  for (const std::string& policy : policies) steps.run.push_back("--policy=" + policy);
  steps.run.insert(steps.run.end(), {seed_flag, "--parallel=1", "--quiet", "--out=" + folder.string()});
  return steps;
}

void check_cells(const SweepPlan& plan) {
  for (std::size_t c = 0; c < plan.cells.size(); ++c) {
    try {
      const RunSteps steps = run_steps(plan.cells[c], plan.policies, plan.seeds.front(), "RUN");
      for (const auto* step : {&steps.platform, &steps.mix, &steps.run})
        if (!step->empty()) parse_cli(*step);
    } catch (const InputError& e) {
      std::string what = e.what();
      if (what.starts_with("nvlsim: ")) what.erase(0, 8);
      throw InputError(fmt::format("{}: cell {}: {}", plan.grid, c, what));
    }
  }
}

}  // namespace nvlsim
