// nvlsim: the command-line tool.

#include <cstdio>
#include <string>
#include <vector>

#include "models/input_error.hpp"
#include "sim/cli_options.hpp"
#include "sim/platform_command.hpp"
#include "sim/probe_command.hpp"
#include "sim/run_command.hpp"
#include "sim/workload_command.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (!args.empty() && args[0] == "probe") return nvlsim::probe_command(std::span(args).subspan(1));
    if (!args.empty() && args[0] == "workload") return nvlsim::workload_command(std::span(args).subspan(1));
    const auto cli = nvlsim::parse_cli(args);
    switch (cli.command) {
      case nvlsim::Command::help:
        std::fputs(nvlsim::usage().c_str(), stdout);
        std::fputs(nvlsim::probe_usage().c_str(), stdout);
        std::fputs(nvlsim::workload_usage().c_str(), stdout);
        return 0;
      case nvlsim::Command::version:
        std::puts(NVLSIM_VERSION);
        return 0;
      case nvlsim::Command::platform:
        return nvlsim::platform_command(cli.platform);
      case nvlsim::Command::run:
        return nvlsim::run_command(cli.run, std::vector<std::string>(argv, argv + argc));
    }
  } catch (const nvlsim::InputError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nvlsim: %s\n", e.what());
    return 1;
  }
  return 1;
}
