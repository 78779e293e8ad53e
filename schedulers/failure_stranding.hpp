#pragma once
// Healthy GPUs a failure strands: what block-structured policies cannot offer because of down GPUs.

#include <span>
#include <vector>

#include "schedulers/block_layout.hpp"
#include "schedulers/cluster_state.hpp"

namespace nvlsim {

// A base block touched by a failure.
struct FailedBlock {
  int trays = 0;             // in the block
  int idle_trays = 0;        // trays with every GPU free
  int repairable_trays = 0;  // trays that would be idle if their down GPUs came back
  bool busy = false;         // a job runs on or holds one of its trays
};

// Free healthy GPUs on the trays in `down_trays` (trays with at least one down GPU): policies that
// allocate whole trays cannot give them to a job of a tray or more.
int free_gpus_on_down_trays(const ClusterState& state, std::span<const int> down_trays);

class FailedBlocks {
 public:
  explicit FailedBlocks(const BlockLayout& layout);
  // The base blocks of `layout` (the one given at construction) holding `down_trays`, each once.
  std::vector<FailedBlock> of(const BlockLayout& layout, const ClusterState& state,
                              std::span<const int> down_trays) const;

 private:
  std::vector<int> block_of_tray_;  // -1 for trays in no block
};

}  // namespace nvlsim
