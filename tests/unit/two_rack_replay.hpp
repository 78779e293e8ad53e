#pragma once
// A hand-written trace replayed by the nvlsim binary on the shipped two-rack platform (144 GPUs), small
// enough that a test can check the exact figures it must give.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "nvlsim_process.hpp"

namespace nvlsim::test {

// Writes `swf` (the trace's lines) to dir/t.swf and replays it with `flags`; the run must succeed.
// Returns its output folder, dir/out.
inline std::filesystem::path replay_on_two_racks(const std::filesystem::path& dir, const std::string& swf,
                                                 const std::string& flags) {
  const auto trace = dir / "t.swf";
  std::ofstream(trace) << swf;
  const auto out = dir / "out";
  const auto r = run_nvlsim("--quiet " + flags + " --platform " + std::string(NVLSIM_SOURCE_DIR) +
                                "/platforms/nvl72x2.xml --trace " + trace.string() + " --out " + out.string(),
                            dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return out;
}

}  // namespace nvlsim::test
