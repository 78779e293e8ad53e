#include "workloads/procs_per_gpu.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace nvlsim {

int fit_procs_per_gpu(const SwfTrace& trace, int platform_gpus) {
  std::int64_t procs = 0;
  // Header values are free text: a MaxProcs that is not a whole number says nothing, so it is ignored.
  if (const auto max_procs = trace.header.get("MaxProcs")) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(max_procs->data(), max_procs->data() + max_procs->size(), value);
    if (ec == std::errc{} && end == max_procs->data() + max_procs->size()) procs = value;
  }
  for (const SwfRecord& r : trace.records)
    procs = std::max(procs, r.allocated_processors != -1 ? r.allocated_processors : r.requested_processors);
  if (procs <= platform_gpus || platform_gpus <= 0) return 1;
  return static_cast<int>((procs + platform_gpus - 1) / platform_gpus);
}

}  // namespace nvlsim
