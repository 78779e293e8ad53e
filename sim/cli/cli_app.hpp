#pragma once
// The nvlsim command line: its commands and their options, parsed with CLI11.

#include <span>
#include <string>

#include "sim/cli/platform_command.hpp"
#include "sim/cli/probe_command.hpp"
#include "sim/cli/run_options.hpp"
#include "sim/cli/sweep_command.hpp"
#include "sim/cli/workload_command.hpp"

namespace nvlsim {

enum class Command {
  run,
  platform,
  workload_mix,
  workload_convert,
  probe,
  sweep,
  sweep_collect,
  sweep_run_one,
  help,
  version
};

struct CliOptions {
  Command command = Command::run;
  RunOptions run;
  PlatformOptions platform;
  WorkloadMixOptions mix;
  WorkloadConvertOptions convert;
  ProbeOptions probe;
  SweepOptions sweep;
  std::string text;  // the --help or --version text to print
};

// `args` without the program name; `run` is the command when they are empty or start with an option.
// Throws InputError "nvlsim: --flag: what is wrong" for unknown options, options given twice (all but
// the repeatable ones), values out of range and missing requirements.
CliOptions parse_cli(std::span<const std::string> args);

}  // namespace nvlsim
