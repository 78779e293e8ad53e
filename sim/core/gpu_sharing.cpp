#include "sim/core/gpu_sharing.hpp"

namespace nvlsim {

namespace {

constexpr std::string_view kNames[] = {"none", "shard", "mps"};

}  // namespace

bool parse_gpu_sharing(std::string_view text, GpuSharing& out) {
  for (int i = 0; i < 3; ++i) {
    if (text != kNames[i]) continue;
    out = static_cast<GpuSharing>(i);
    return true;
  }
  return false;
}

std::string_view gpu_sharing_name(GpuSharing mode) {
  return kNames[static_cast<int>(mode)];
}

}  // namespace nvlsim
