#include "sim/sharing_check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/input_error.hpp"

namespace nvlsim {

void check_gpu_sharing(std::span<const std::unique_ptr<PlacementPolicy>> policies, std::span<const Job> jobs,
                       const SharingConfig& sharing) {
  const auto fractional =
      std::ranges::count_if(jobs, [&](const Job& job) { return sharing.shares_of(job.gpu_milli) > 0; });
  if (fractional == 0) return;
  for (const auto& policy : policies) {
    if (policy->places_shared_gpus()) continue;
    throw InputError(fmt::format(
        "nvlsim: --gpu-sharing {}: {} does not place shared GPUs (only per-gpu does; docs/sharing.md), and "
        "{} of the trace ask{} for part of a GPU",
        gpu_sharing_name(sharing.mode), policy->name(),
        fractional == 1 ? "1 job" : fmt::format("{} jobs", fractional), fractional == 1 ? "s" : ""));
  }
}

}  // namespace nvlsim
