#pragma once
// What a policy's child process sends its parent: the policy's summary and how its replay went. The rows
// behind the summary stay in the files the child wrote (see policy_outputs).

#include <cstddef>
#include <string>
#include <string_view>

#include "analysis/summary.hpp"

namespace nvlsim {

struct PolicyReport {
  Summary summary;
  double wall_seconds = 0;  // the replay's, for run.json
  std::size_t samples = 0;  // state samples the replay recorded: its size, for nvlsim-bench
};

// A line "wall_seconds,samples", then the summary's summary.csv row: the summary's fields are declared
// once, by that file's column list.
std::string encode_report(const PolicyReport& report);
// The report encode_report wrote; throws std::runtime_error for anything else.
PolicyReport decode_report(std::string_view bytes);

}  // namespace nvlsim
