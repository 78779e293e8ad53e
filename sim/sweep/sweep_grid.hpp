#pragma once
// A sweep grid file (docs/sweep.md), YAML or JSON (YAML's flow subset, read by the same parser): the
// settings every run shares, the axes of the cross product, explicit cells, the policies and the seeds.
// Every key and value is checked as it is read, so a bad one is reported as "FILE:LINE: FIELD: what is
// wrong" before any run starts.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sim/sweep/grid_keys.hpp"

namespace nvlsim {

struct GridSetting {
  std::string key;    // a GridKey's name
  std::string value;  // its text; "true" or "false" for a flag; a file as an absolute path
  int line = 0;       // 1-based, in the grid file
};

struct GridAxis {
  std::string key;
  std::vector<GridSetting> values;  // in the order given, at least one
};

struct Grid {
  std::filesystem::path file;
  std::vector<GridSetting> base;
  std::vector<GridAxis> axes;  // the first varies slowest
  std::vector<std::vector<GridSetting>> cells;
  std::vector<std::string> policies;  // checked specs; empty: `nvlsim run`'s default policies
  std::vector<std::uint64_t> seeds;   // distinct; default {1}
};

// The grid `text` read from `file`; relative file names resolve against the file's folder. Throws
// InputError "FILE:LINE: FIELD: what is wrong" (FIELD as "axes.load[2]").
Grid parse_grid(std::string_view text, const std::filesystem::path& file, const GridKeys& keys);
Grid read_grid(const std::filesystem::path& file, const GridKeys& keys);

}  // namespace nvlsim
