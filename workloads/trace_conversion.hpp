#pragma once
// `nvlsim workload convert`: GPU-cluster logs (Alibaba GPU v2023, Helios, Philly) to SWF records.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workloads/swf_record.hpp"

namespace nvlsim {

enum class TraceFormat { alibaba, helios, philly };

std::optional<TraceFormat> parse_trace_format(std::string_view name);  // "alibaba", "helios", "philly"

// Counts per reason, in the order reasons first occur.
class ReasonCounts {
 public:
  void add(const std::string& reason);
  std::size_t total() const;
  const std::vector<std::pair<std::string, std::size_t>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::string, std::size_t>> entries_;
};

struct Conversion {
  std::vector<std::pair<std::string, std::string>> header;  // SWF "; Key: value" lines
  std::vector<SwfRecord> records;                           // input order
  std::size_t rows_read = 0;                                // job rows (pods, jobs) in the input
  ReasonCounts skipped;                                     // rows left out, and why
  ReasonCounts adjusted;                                    // rows kept but changed, and how
  ReasonCounts kept;  // rows kept as the log gave them where a reader might expect a change (fractions)
};

// Every record's job number is the row's position in the input (1-based, skipped rows counted), so a job
// can be traced back; submit times count from the earliest one (header UnixStartTime when the input has
// calendar times). Malformed input (a missing column, a value that is not a time or number) throws
// InputError "FILE:LINE: field N (NAME): what is wrong" (Philly: "FILE: [i].key: ...", JSON has no lines).
Conversion convert_trace(TraceFormat format, const std::filesystem::path& input);

Conversion convert_alibaba(const std::filesystem::path& input);
Conversion convert_helios(const std::filesystem::path& input);
Conversion convert_philly(const std::filesystem::path& input);

}  // namespace nvlsim
