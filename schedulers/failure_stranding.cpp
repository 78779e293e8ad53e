#include "schedulers/failure_stranding.hpp"

#include <algorithm>

#include "schedulers/node_gpus.hpp"

namespace nvlsim {

int free_gpus_on_down_trays(const ClusterState& state, std::span<const int> down_trays) {
  int free = 0;
  for (int tray : down_trays) free += state.free_gpus_in_tray(tray);
  return free;
}

FailedBlocks::FailedBlocks(const BlockLayout& layout) {
  int trays = 0;
  for (const auto& block : layout.blocks)
    for (int tray : block) trays = std::max(trays, tray + 1);
  block_of_tray_.assign(trays, -1);
  for (std::size_t b = 0; b < layout.blocks.size(); ++b)
    for (int tray : layout.blocks[b]) block_of_tray_[tray] = static_cast<int>(b);
}

std::vector<FailedBlock> FailedBlocks::of(const BlockLayout& layout, const ClusterState& state,
                                          std::span<const int> down_trays) const {
  std::vector<int> blocks;
  for (int tray : down_trays)
    if (tray < static_cast<int>(block_of_tray_.size()) && block_of_tray_[tray] >= 0)
      blocks.push_back(block_of_tray_[tray]);
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  const ClusterShape& shape = state.shape();
  std::vector<FailedBlock> result;
  for (int b : blocks) {
    FailedBlock f;
    f.trays = static_cast<int>(layout.blocks[b].size());
    for (int tray : layout.blocks[b]) {
      if (state.tray_idle(tray)) {
        ++f.idle_trays;
      } else if (tray_busy(state, tray)) {
        f.busy = true;
      } else {
        const int first = shape.first_gpu_of_tray(tray);
        bool repairable = true;
        for (int gpu = first; gpu < first + shape.gpus_per_tray; ++gpu)
          repairable = repairable && (state.gpu_free(gpu) || state.gpu_down(gpu));
        f.repairable_trays += repairable;
      }
    }
    result.push_back(f);
  }
  return result;
}

}  // namespace nvlsim
