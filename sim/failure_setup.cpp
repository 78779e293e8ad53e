#include "sim/failure_setup.hpp"

#include "models/failure_replay.hpp"

namespace nvlsim {

FailureConfig failure_config(const FailureRequest& request, const LoadedPlatform& platform) {
  FailureConfig f;
  f.seed = request.seed;
  if (!request.source) return f;
  const std::string& source = *request.source;
  f.source = source;
  if (source.ends_with(".csv")) {
    f.mode = FailureMode::replay;
    f.replay = read_failure_replay(source, platform.spec.shape, platform.spec.fabric.nvlink_links_per_gpu);
    return f;
  }
  f.mode = FailureMode::model;
  const auto builtin = builtin_failure_model(source);
  f.model = builtin ? *builtin : read_failure_model(source);
  for (auto& c : f.model.components) c.mtbf_hours /= request.rate_scale;
  // A scale of 1e9 on llama3 would leave MTBFs of seconds: the same bound as a file's own rate_scale.
  if (request.rate_scale != 1) check_failure_model(f.model, "nvlsim: --failure-rate-scale");
  return f;
}

}  // namespace nvlsim
