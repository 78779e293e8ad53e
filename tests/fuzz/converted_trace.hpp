#pragma once
// What every converter promises about its output: SWF that nvlsim's own reader accepts, with jobs that
// hold GPUs and times in order, and the fractions of a GPU they ask read back as written.

#include <cmath>
#include <sstream>

#include "tests/fuzz/fuzz_support.hpp"
#include "workloads/swf_reader.hpp"
#include "workloads/swf_writer.hpp"
#include "workloads/trace_conversion.hpp"

namespace nvlsim::fuzz {

inline void check_conversion(const Conversion& c) {
  for (const SwfRecord& r : c.records) {
    require(r.allocated_processors > 0 && r.requested_processors == r.allocated_processors);
    require(std::isfinite(r.submit_time) && r.submit_time >= 0);
    require(std::isfinite(r.wait_time) && r.wait_time >= 0);
    require(std::isfinite(r.run_time) && r.run_time >= 0);
  }
  require(c.skipped.total() + c.records.size() == c.rows_read);
  std::stringstream swf;
  write_swf(swf, c.header, c.records);
  require(parses([&] {
    const SwfTrace back = parse_swf(swf, "converted.swf");
    require(back.records.size() == c.records.size());
    for (std::size_t i = 0; i < back.records.size(); ++i)
      require(back.records[i].gpu_milli == c.records[i].gpu_milli);
  }));
}

}  // namespace nvlsim::fuzz
