#include "sim/admission.hpp"

#include <fmt/format.h>

#include "sim/core/job_requests.hpp"

namespace nvlsim {

std::string Admission::rejection_reason(const Job& job) {
  if (job.run_time < 0) return "run time unknown in the trace";
  if (job.gpus <= 0) return "requests no GPUs";
  const JobRequest request = request_of(job, config_, empty_.shape());
  // A size rounded up to whole trays says so: jobs.csv shows the trace's count.
  const std::string asked = request.gpus == job.gpus
                                ? fmt::format("{} GPUs", job.gpus)
                                : fmt::format("{} GPUs ({} in whole trays)", job.gpus, request.gpus);
  const int total = empty_.shape().gpus();
  if (request.gpus > total) return fmt::format("requests {}, the platform has {}", asked, total);
  if (std::string why = policy_.refusal(request); !why.empty())
    return fmt::format("policy {} refuses {}: {}", policy_.name(), asked, why);
  // A job the policy cannot place on an empty machine would block the queue forever.
  auto [it, fresh] =
      placeable_.try_emplace({request.gpus, request.shards, request.segment_nodes, request.shape}, false);
  if (fresh) it->second = policy_.place(empty_, request).has_value();
  if (!it->second)
    return fmt::format("policy {} cannot place {} even on an empty platform", policy_.name(), asked);
  return {};
}

}  // namespace nvlsim
