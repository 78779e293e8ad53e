#pragma once
// Reads SWF traces (plain or gzip-compressed) into records, with the header's "; Key: value" comments.

#include <cstddef>
#include <filesystem>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workloads/swf_record.hpp"

namespace nvlsim {

struct SwfHeader {
  std::vector<std::pair<std::string, std::string>> entries;  // in file order
  // Value of the first entry with this key (case-sensitive), if any.
  std::optional<std::string> get(std::string_view key) const;
};

struct SkippedLine {
  std::size_t line = 0;
  std::string message;  // the same text the error would have carried
};

struct SwfTrace {
  std::string path;
  SwfHeader header;
  std::vector<SwfRecord> records;
  std::vector<std::size_t> record_lines;  // line number of each record
  std::size_t lines_read = 0;
  std::vector<SkippedLine> skipped;  // every skipped line, when skipping is on
};

struct SwfReadOptions {
  bool skip_bad_lines = false;  // false: the first bad line throws InputError
};

// Job lines have 18 fields, or 19 after a "; Field19: gpu_milli" header line (SwfRecord::gpu_milli).
// Throws InputError "FILE:LINE: field N (name): what is wrong" on a malformed line (unless skipping),
// "FILE:LINE: header Field19: what is wrong" on a wrong declaration (always), and "FILE: ..." when the
// file cannot be opened or decompressed.
SwfTrace read_swf(const std::filesystem::path& path, SwfReadOptions options = {});
SwfTrace parse_swf(std::istream& in, std::string_view display_name, SwfReadOptions options = {});

}  // namespace nvlsim
