#pragma once
// What a trace job asks the scheduler for under the run's request settings. Admission and the driver
// both ask here, so a job is admitted on the very request it later queues with.

#include "models/cluster_shape.hpp"
#include "schedulers/job_request.hpp"
#include "sim/core/simulation_config.hpp"
#include "workloads/job.hpp"

namespace nvlsim {

// Under `nodes` shaping a size that is not a multiple of a tray asks for whole trays, so the request can
// hold more GPUs than the trace job; the job then runs on all of them (docs/workloads.md). The request
// carries the job class's preferred segment to sub-block. Under --gpu-sharing a fractional job asks for
// shares of one GPU (`--gres=shard:K` or `--gres=mps:K`), which no shaping or CPU share applies to.
inline JobRequest request_of(const Job& job, const SimulationConfig& config, const ClusterShape& shape) {
  if (const int shares = config.sharing.shares_of(job.gpu_milli); shares > 0)
    return {.gpus = 1,
            .shards = shares,
            .gres = config.sharing.mode == GpuSharing::mps ? SharedGres::mps : SharedGres::shard};
  JobRequest request =
      shape_request(job.gpus, config.request_shaping, shape.gpus_per_tray, config.cpus_per_gpu);
  if (job.job_class >= 0 && job.job_class < static_cast<int>(config.classes.size()))
    request.segment_nodes = config.classes[static_cast<std::size_t>(job.job_class)].segment_nodes;
  return request;
}

}  // namespace nvlsim
