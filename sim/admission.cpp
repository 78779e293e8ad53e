#include "sim/admission.hpp"

#include <fmt/format.h>

namespace nvlsim {

std::string Admission::rejection_reason(const Job& job) {
  if (job.run_time < 0) return "run time unknown in the trace";
  if (job.gpus <= 0) return "requests no GPUs";
  const int total = empty_.shape().gpus();
  if (job.gpus > total) return fmt::format("requests {} GPUs, the platform has {}", job.gpus, total);
  // A job the policy cannot place on an empty machine would block the queue forever.
  auto [it, fresh] = placeable_.try_emplace(job.gpus, false);
  if (fresh) it->second = policy_.place(empty_, JobRequest{job.gpus}).has_value();
  if (!it->second)
    return fmt::format("policy {} cannot place {} GPUs even on an empty platform", policy_.name(), job.gpus);
  return {};
}

}  // namespace nvlsim
