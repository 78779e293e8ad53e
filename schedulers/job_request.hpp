#pragma once
// What a job asks Slurm for, in the two forms GPU jobs use: a GPU count anywhere (`--gpus=G`), or whole
// nodes (`-N K --gpus-per-node=<all of a tray>`), each with an optional CPU share (`--cpus-per-gpu=C`);
// or shards of GPUs (`-N K --gres=shard:S`).

#include <string>
#include <string_view>
#include <vector>

namespace nvlsim {

enum class RequestShape {
  gpus,   // --gpus=G: Slurm picks the nodes and the GPUs on each
  nodes,  // -N ceil(G / tray) --gpus-per-node=tray: whole trays' GPUs
};

// The GRES a share of a GPU is asked in. Both count shares per GPU (ClusterState::shards_per_gpu: 4
// shards, or 100 for MPS's percentage); MPS in Slurm's default mode (one_sharing) also keeps all MPS jobs
// of a tray on one GPU.
enum class SharedGres { shard, mps };

struct JobRequest {
  int gpus = 0;  // GPUs the job runs on; a `nodes` request takes whole trays, so a multiple of a tray
  RequestShape shape = RequestShape::gpus;
  int cpus_per_gpu = 0;  // 0: Slurm's default of one task, one CPU on each node the job uses
  // The job class's preferred sub-block segment in trays (workloads/job_class.hpp); 0 = the policy's own.
  int segment_nodes = 0;
  // A share of GPUs (docs/sharing.md): when K > 0 the job asks `-N gpus --gres=shard:K` (or, with
  // `gres` mps, `--gres=mps:K`), K shares of one GPU on each of `gpus` trays, and `shape` and
  // `cpus_per_gpu` do not apply (one CPU per tray). 0: whole GPUs.
  int shards = 0;
  SharedGres gres = SharedGres::shard;

  bool operator==(const JobRequest&) const = default;
};

// The salloc options of the request on trays of 4 GPUs: `--gpus=G` or `-N K --gpus-per-node=4`, with
// `--cpus-per-gpu=C` when it asks a CPU share; a share request `-N K --gres=shard:S` (or mps:S).
std::vector<std::string> slurm_request_options(const JobRequest& request, int gpus_per_tray = 4);

// How a run turns a trace job's GPU count into a request (the run setting --request-shape).
enum class RequestShaping {
  gpus,   // every job asks --gpus=G
  nodes,  // every job asks whole trays: ceil(G / tray) nodes
  auto_,  // a multiple of a tray's GPUs asks whole trays (as training jobs do), other sizes --gpus=G
};

// "gpus", "nodes" or "auto"; nullopt-like failure is the caller's: returns false on an unknown name.
bool parse_request_shaping(std::string_view text, RequestShaping& out);
std::string_view request_shaping_name(RequestShaping shaping);

// The request of a job of `gpus` GPUs on trays of `gpus_per_tray` under `shaping`. A `nodes` request of
// a size that is not a multiple of a tray asks for the next whole tray count, as `-N` can only.
JobRequest shape_request(int gpus, RequestShaping shaping, int gpus_per_tray, int cpus_per_gpu);

}  // namespace nvlsim
