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
#include "sim/cli/cli_app.hpp"
#include "sim/cli/run_command.hpp"
#include "sim/cli/sweep_steps.hpp"
#include "sim/engine_setup.hpp"
#include "sim/sweep/plan_file.hpp"
#include "sim/whole_file.hpp"

namespace nvlsim {

namespace fs = std::filesystem;

namespace {

// Both streams into the run's folder, for this process and those it starts.
void redirect(int stream, const fs::path& file) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ::dup2(fd, stream) < 0)
    throw InputError(fmt::format("{}: cannot write: {}", file.string(), std::strerror(errno)));
  ::close(fd);
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

  const RunSteps steps = run_steps(cell, plan.policies, run.seed, folder);
  if (!steps.platform.empty()) platform_command(parse_cli(steps.platform).platform);
  if (!steps.mix.empty()) mix_command(parse_cli(steps.mix).mix);
  std::vector<std::string> command_line = {"nvlsim"};
  command_line.insert(command_line.end(), steps.run.begin(), steps.run.end());
  say_when_interrupted();
  const int status = run_command(parse_cli(steps.run).run, command_line);
  if (status != 0) return status;
  const nlohmann::ordered_json done = {
      {"run", run.id},    {"cell", run.cell},          {"seed", run.seed},
      {"settings", cell}, {"policies", plan.policies}, {"command_line", command_line}};
  write_whole_file(done_path(folder), [&](std::ostream& out) { out << done.dump(2) << '\n'; });
  fs::remove(error_path(folder), ec);
  return 0;
}

}  // namespace nvlsim
