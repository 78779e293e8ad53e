#pragma once
// Writes SWF (Parallel Workloads Archive v2.2) that read_swf reads back to the same records.

#include <ostream>
#include <span>
#include <string>
#include <utility>

#include "workloads/swf_record.hpp"

namespace nvlsim {

// "; Key: value" header lines, then one line of 18 fields per record. Numbers are written in the shortest
// form that reads back as the same value, so writing then reading is exact. When any record asks for part
// of a GPU (gpu_milli != -1), the header ends with "; Field19: gpu_milli" and every line has field 19;
// otherwise the file is plain SWF, so callers never declare the field themselves.
void write_swf(std::ostream& out, std::span<const std::pair<std::string, std::string>> header,
               std::span<const SwfRecord> records);

}  // namespace nvlsim
