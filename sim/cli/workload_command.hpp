#pragma once
// `nvlsim workload mix ...` and `nvlsim workload convert ...`: write SWF traces.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "workloads/mix_generator.hpp"
#include "workloads/trace_conversion.hpp"

namespace nvlsim {

struct WorkloadMixOptions {
  MixParams params;
  std::string output;
};

struct WorkloadConvertOptions {
  std::optional<TraceFormat> format;
  std::string input;
  std::string output;
};

struct WorkloadCommands {
  CLI::App* mix;
  CLI::App* convert;
};

// Declares `workload` with its subcommands `mix` and `convert` on `app`, filling the options.
WorkloadCommands add_workload_command(CLI::App& app, WorkloadMixOptions& mix,
                                      WorkloadConvertOptions& convert);

// Return the exit status; throw InputError for bad input or an output that cannot be written.
int mix_command(const WorkloadMixOptions& options);
int convert_command(const WorkloadConvertOptions& options);

}  // namespace nvlsim
