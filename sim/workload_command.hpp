#pragma once
// `nvlsim workload mix ...` and `nvlsim workload convert ...`: write SWF traces.

#include <span>
#include <string>

namespace nvlsim {

// Arguments after "workload". Returns the exit status; throws InputError for bad flags or input.
int workload_command(std::span<const std::string> args);

std::string workload_usage();

}  // namespace nvlsim
