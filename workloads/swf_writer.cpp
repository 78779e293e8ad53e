#include "workloads/swf_writer.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace nvlsim {

void write_swf(std::ostream& out, std::span<const std::pair<std::string, std::string>> header,
               std::span<const SwfRecord> records) {
  const bool with_gpu_milli =
      std::ranges::any_of(records, [](const SwfRecord& r) { return r.gpu_milli != -1; });
  std::string text;
  for (const auto& [key, value] : header) fmt::format_to(std::back_inserter(text), "; {}: {}\n", key, value);
  if (with_gpu_milli)
    fmt::format_to(std::back_inserter(text), "; {}: {}\n", kGpuMilliHeaderKey, kGpuMilliFieldName);
  for (const SwfRecord& r : records) {
    fmt::format_to(std::back_inserter(text), "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
                   r.job_number, r.submit_time, r.wait_time, r.run_time, r.allocated_processors,
                   r.average_cpu_time, r.used_memory, r.requested_processors, r.requested_time,
                   r.requested_memory, r.status, r.user_id, r.group_id, r.executable_number, r.queue_number,
                   r.partition_number, r.preceding_job, r.think_time);
    if (with_gpu_milli) fmt::format_to(std::back_inserter(text), " {}", r.gpu_milli);
    text += '\n';
    if (text.size() > (1 << 16)) {
      out << text;
      text.clear();
    }
  }
  out << text;
}

}  // namespace nvlsim
