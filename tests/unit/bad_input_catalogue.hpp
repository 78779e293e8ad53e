#pragma once
// The bad-input catalogue's cases, run as a user would: each must end with its exit status, a message
// naming what is wrong (file and line where there is one), and an output folder that holds either one
// complete run or nothing at all. docs/inputs.md lists the limits the cases probe; the tables live in
// test_bad_traces.cpp, test_bad_platforms.cpp and test_bad_files_and_flags.cpp.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nvlsim::test {

struct BadInput {
  std::string name;
  std::vector<std::pair<std::string, std::string>> files;  // written into the case's folder first
  std::string args;                                        // after --quiet --out out
  int status = 2;
  std::vector<std::string> said;  // each must appear in stderr
};

// Runs every case in its own folder under a scratch folder named after `table`, one Catch section each.
void check_bad_inputs(std::string_view table, const std::vector<BadInput>& cases);

}  // namespace nvlsim::test
