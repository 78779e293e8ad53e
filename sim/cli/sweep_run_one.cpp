#include "sim/cli/sweep_run_one.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "models/input_error.hpp"
#include "models/system_catalog.hpp"
#include "platforms/platform_spec.hpp"
#include "sim/cli/cli_app.hpp"
#include "sim/cli/run_command.hpp"
#include "sim/cli/shipped_names.hpp"
#include "sim/cli/sweep_keys.hpp"
#include "sim/engine_setup.hpp"
#include "sim/sweep/plan_file.hpp"
#include "sim/whole_file.hpp"

namespace nvlsim {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMixPrefix = "mix.";
constexpr std::string_view kPlatformPrefix = "platform.";

// The command lines of the three steps, from the cell's settings, each without its command.
struct Steps {
  std::vector<std::string> platform, mix, run;
};

Steps steps(const CellSettings& cell) {
  const GridKeys keys = sweep_grid_keys();
  Steps s;
  for (const auto& [key, value] : cell) {
    const GridKey& k = *keys.find(key);
    std::vector<std::string>* args = &s.run;
    std::string name = key;
    for (const auto& [prefix, step] :
         {std::pair{kMixPrefix, &s.mix}, std::pair{kPlatformPrefix, &s.platform}})
      if (key.starts_with(prefix)) {
        args = step;
        name.erase(0, prefix.size());
      }
    if (k.takes_value)
      args->push_back(fmt::format("--{}={}", name, value));
    else if (value == "true")
      args->push_back("--" + name);
  }
  return s;
}

// Both streams into the run's folder, for this process and those it starts.
void redirect(int stream, const fs::path& file) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ::dup2(fd, stream) < 0)
    throw InputError(fmt::format("{}: cannot write: {}", file.string(), std::strerror(errno)));
  ::close(fd);
}

// GPUs of the platform the run replays on, for a generated trace that does not give mix.gpus.
int platform_gpus(const CellSettings& cell, const CliOptions* generated) {
  if (generated != nullptr)
    return system_platform(system_named(generated->platform.system), generated->platform.racks).shape.gpus();
  const auto platform = cell.find("platform");
  const std::optional<int> racks =
      platform == cell.end() ? kDefaultRacks : builtin_platform_racks(platform->second);
  if (!racks)
    throw InputError(fmt::format("mix.gpus: required when the platform is a file ({})", platform->second));
  return nvl72_platform(*racks).shape.gpus();
}

std::vector<std::string> with(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

}  // namespace

int run_one_command(const SweepOptions& options) {
  const fs::path dir = options.dir;
  const SweepPlan plan = read_plan(dir);
  if (options.index >= plan.runs.size())
    throw InputError(fmt::format("nvlsim: sweep run-one: {} has runs 0 to {}, got {}",
                                 plan_path(dir).string(), plan.runs.size() - 1, options.index));
  const SweepRun& run = plan.runs[options.index];
  const CellSettings& cell = plan.cells[run.cell];
  const fs::path folder = run_dir(dir, run);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create: {}", folder.string(), ec.message()));
  fs::remove(done_path(folder));
  std::fflush(stdout);
  std::fflush(stderr);
  redirect(STDOUT_FILENO, folder / "stdout.txt");
  redirect(STDERR_FILENO, error_path(folder));

  Steps s = steps(cell);
  const std::string seed = fmt::format("--seed={}", run.seed);
  std::optional<CliOptions> generated_platform;
  if (!s.platform.empty()) {
    const fs::path file = folder / "platform.xml";
    generated_platform = parse_cli(with({"platform"}, with(s.platform, {"-o", file.string()})));
    platform_command(generated_platform->platform);
    s.run.push_back("--platform=" + file.string());
  }
  if (!s.mix.empty()) {
    const fs::path file = folder / "trace.swf";
    if (!cell.contains("mix.gpus"))
      s.mix.push_back(
          fmt::format("--gpus={}", platform_gpus(cell, generated_platform ? &*generated_platform : nullptr)));
    mix_command(parse_cli(with({"workload", "mix"}, with(s.mix, {seed, "-o", file.string()}))).mix);
    s.run.push_back("--trace=" + file.string());
  }
  std::vector<std::string> args = with({"run"}, s.run);
  for (const std::string& policy : plan.policies) args.push_back("--policy=" + policy);
  args.insert(args.end(), {seed, "--parallel=1", "--quiet", "--out=" + folder.string()});
  const CliOptions cli = parse_cli(args);
  say_when_interrupted();
  const int status = run_command(cli.run, with({"nvlsim"}, args));
  if (status != 0) return status;
  const nlohmann::ordered_json done = {
      {"run", run.id},    {"cell", run.cell},          {"seed", run.seed},
      {"settings", cell}, {"policies", plan.policies}, {"command_line", with({"nvlsim"}, args)}};
  write_whole_file(done_path(folder), [&](std::ostream& out) { out << done.dump(2) << '\n'; });
  fs::remove(error_path(folder), ec);
  return 0;
}

}  // namespace nvlsim
