#include "workloads/procs_per_gpu.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "models/input_error.hpp"
#include "models/read_number.hpp"

namespace nvlsim {

int fit_procs_per_gpu(const SwfTrace& trace, int platform_gpus) {
  std::int64_t procs = 0;
  // Header values are free text: a MaxProcs that is not a whole number says nothing, so it is ignored.
  if (const auto max_procs = trace.header.get("MaxProcs"))
    if (const auto value = read_number<std::int64_t>(*max_procs)) procs = value.value;
  for (const SwfRecord& r : trace.records)
    procs = std::max(procs, r.allocated_processors != -1 ? r.allocated_processors : r.requested_processors);
  if (procs <= platform_gpus || platform_gpus <= 0) return 1;
  // Rounded up without procs + platform_gpus - 1, which overflows for the largest counts.
  const std::int64_t per_gpu = procs / platform_gpus + (procs % platform_gpus != 0);
  if (per_gpu > std::numeric_limits<int>::max())
    throw InputError(fmt::format("{}: --fit: {} processors would need {} per GPU, more than {}", trace.path,
                                 procs, per_gpu, std::numeric_limits<int>::max()));
  return static_cast<int>(per_gpu);
}

}  // namespace nvlsim
