#include "schedulers/job_request.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace nvlsim {

bool parse_request_shaping(std::string_view text, RequestShaping& out) {
  if (text == "gpus")
    out = RequestShaping::gpus;
  else if (text == "nodes")
    out = RequestShaping::nodes;
  else if (text == "auto")
    out = RequestShaping::auto_;
  else
    return false;
  return true;
}

std::string_view request_shaping_name(RequestShaping shaping) {
  switch (shaping) {
    case RequestShaping::gpus:
      return "gpus";
    case RequestShaping::nodes:
      return "nodes";
    case RequestShaping::auto_:
      return "auto";
  }
  return "auto";
}

std::vector<std::string> slurm_request_options(const JobRequest& request, int gpus_per_tray) {
  if (request.shards > 0) {
    const char* gres = request.gres == SharedGres::mps ? "mps" : "shard";
    return {"-N", std::to_string(request.gpus), fmt::format("--gres={}:{}", gres, request.shards)};
  }
  std::vector<std::string> options;
  if (request.shape == RequestShape::nodes)
    options = {"-N", std::to_string(request.gpus / gpus_per_tray),
               fmt::format("--gpus-per-node={}", gpus_per_tray)};
  else
    options = {fmt::format("--gpus={}", request.gpus)};
  if (request.cpus_per_gpu > 0) options.push_back(fmt::format("--cpus-per-gpu={}", request.cpus_per_gpu));
  return options;
}

JobRequest shape_request(int gpus, RequestShaping shaping, int gpus_per_tray, int cpus_per_gpu) {
  const bool whole = gpus % gpus_per_tray == 0;
  if (shaping == RequestShaping::nodes || (shaping == RequestShaping::auto_ && whole)) {
    const int nodes = (gpus + gpus_per_tray - 1) / gpus_per_tray;
    return {nodes * gpus_per_tray, RequestShape::nodes, cpus_per_gpu};
  }
  return {gpus, RequestShape::gpus, cpus_per_gpu};
}

}  // namespace nvlsim
