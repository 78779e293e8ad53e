#pragma once
// Runs `nvlsim probe ARGS` and reads its "key value" lines into a map (the run must succeed).

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "nvlsim_process.hpp"

namespace nvlsim::test {

inline std::map<std::string, std::string> probe(const std::string& args, const std::filesystem::path& dir) {
  const auto r = run_nvlsim("probe " + args, dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::map<std::string, std::string> out;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    const auto space = line.find(' ');
    out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

}  // namespace nvlsim::test
