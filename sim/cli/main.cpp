// nvlsim: the command-line tool.

#include <cstdio>
#include <string>
#include <vector>

#include "models/input_error.hpp"
#include "sim/cli/cli_app.hpp"
#include "sim/cli/run_command.hpp"
#include "sim/cli/sweep_run_one.hpp"
#include "sim/engine_setup.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    const auto cli = nvlsim::parse_cli(args);
    switch (cli.command) {
      case nvlsim::Command::help:
      case nvlsim::Command::version:
        std::fputs(cli.text.c_str(), stdout);
        return 0;
      case nvlsim::Command::platform:
        return nvlsim::platform_command(cli.platform);
      case nvlsim::Command::workload_mix:
        return nvlsim::mix_command(cli.mix);
      case nvlsim::Command::workload_convert:
        return nvlsim::convert_command(cli.convert);
      case nvlsim::Command::probe:
        return nvlsim::probe_command(cli.probe);
      case nvlsim::Command::sweep:
        return nvlsim::sweep_command(cli.sweep);
      case nvlsim::Command::sweep_collect:
        return nvlsim::collect_command(cli.sweep);
      case nvlsim::Command::sweep_run_one:
        return nvlsim::run_one_command(cli.sweep);
      case nvlsim::Command::run:
        nvlsim::say_when_interrupted();
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
