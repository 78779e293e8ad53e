#include "schedulers/block_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "models/input_error.hpp"
#include "schedulers/node_gpus.hpp"

namespace nvlsim {

BlockPolicy::BlockPolicy(std::string name, BlockLayout layout, int min_block_nodes, bool partial_operation)
    : name_(std::move(name)),
      layout_(std::move(layout)),
      min_block_nodes_(min_block_nodes),
      partial_operation_(partial_operation),
      domain_blocks_(aligned_block_trays(layout_)),
      failed_blocks_(layout_) {}

bool BlockPolicy::whole_domains(const ClusterState& state) const {
  return min_block_nodes_ == 0 && domain_blocks_ == state.shape().trays_per_domain &&
         !(partial_operation_ && state.down_gpus() > 0);
}

bool BlockPolicy::may_fit(const ClusterState& state, const JobRequest& request) const {
  if (request.shards > 0)
    return request.shards <= state.shards_per_gpu() && may_fit(state, JobRequest{.gpus = request.gpus});
  const ClusterShape& shape = state.shape();
  if (state.free_gpus() < request.gpus) return false;
  if (!whole_domains(state)) return true;
  // A usable block has every tray idle: its domain has all its GPUs free. The job fits exactly when an
  // aligned group at the smallest level holding it has enough such blocks (choose_blocks).
  const int nodes = nodes_for(shape, request.gpus);
  if (state.domains_with_free(shape.gpus_per_domain()) * shape.trays_per_domain < nodes) return false;
  const int width = group_width(layout_, nodes);
  for (int first = 0; first < shape.domains; first += width) {
    int offered = 0;
    for (int d = first; d < std::min(shape.domains, first + width); ++d)
      if (state.free_gpus_in_domain(d) == shape.gpus_per_domain()) offered += shape.trays_per_domain;
    if (offered >= nodes) return true;
  }
  return false;
}

int BlockPolicy::offered_trays(int idle, int block_trays) const {
  const int needed = min_block_nodes_ > 0 ? min_block_nodes_ : block_trays;
  return block_trays > 0 && idle >= needed ? idle : 0;
}

std::optional<Allocation> BlockPolicy::place(const ClusterState& state, const JobRequest& request) const {
  if (request.gpus < 1) throw std::invalid_argument("block: a request needs at least one GPU");
  if (request.shards > 0) {
    // --exclusive=topo gives the job its blocks alone, shares or not: nothing could share its GPU, so it
    // holds them whole (docs/sharing.md, "Shares under block and sub-block"). Shares no GPU has never fit.
    if (request.shards > state.shards_per_gpu()) return std::nullopt;
    return place(state, JobRequest{.gpus = request.gpus});
  }
  const int blocks = static_cast<int>(layout_.blocks.size());
  // Idle trays of each usable base block; 0 for a block another job runs in or that has too few.
  std::vector<int> offered(blocks, 0);
  const bool whole = whole_domains(state);
  if (whole) {
    // Every tray idle is every GPU of the domain free: the state counts that per domain.
    const int trays_per_domain = state.shape().trays_per_domain;
    for (int b = 0; b < blocks; ++b)
      if (state.free_gpus_in_domain(b) == state.shape().gpus_per_domain()) offered[b] = trays_per_domain;
  }
  for (int b = 0; b < blocks && !whole; ++b) {
    const std::vector<int>& trays = layout_.blocks[b];
    int idle = 0;
    int isolated = 0;  // neither idle nor busy: a down GPU and no job
    bool busy = false;
    for (int tray : trays) {
      if (state.tray_idle(tray)) {
        ++idle;
      } else if (tray_busy(state, tray)) {
        busy = true;
        break;
      } else {
        ++isolated;
      }
    }
    if (!busy) offered[b] = offered_trays(idle, block_size(static_cast<int>(trays.size()), isolated));
  }
  std::vector<std::uint8_t> used(blocks, 0);
  const std::vector<BlockTake> takes =
      choose_blocks(layout_, offered, used, nodes_for(state.shape(), request.gpus));
  if (takes.empty()) return std::nullopt;
  Allocation allocation;
  std::vector<int> trays;
  std::size_t held = 0;
  for (const BlockTake& take : takes) held += layout_.blocks[take.block].size();
  allocation.held_trays.reserve(held);
  trays.reserve(nodes_for(state.shape(), request.gpus));
  for (const BlockTake& take : takes) {
    int left = take.nodes;
    const std::vector<int>& block = layout_.blocks[take.block];
    for (auto tray = block.begin(); left > 0 && tray != block.end(); ++tray) {
      if (state.tray_idle(*tray)) {
        trays.push_back(*tray);
        --left;
      }
    }
    allocation.held_trays.insert(allocation.held_trays.end(), block.begin(), block.end());
  }
  // Takes come by block and a layout's blocks usually ascend: then the trays are in order already.
  if (!std::is_sorted(allocation.held_trays.begin(), allocation.held_trays.end()))
    std::sort(allocation.held_trays.begin(), allocation.held_trays.end());
  allocation.gpus = gpus_on_trays(state.shape(), std::move(trays), request.gpus);
  return allocation;
}

int BlockPolicy::failure_stranded_gpus(const ClusterState& state, std::span<const int> down_trays) const {
  int trays = 0;
  for (const FailedBlock& f : failed_blocks_.of(layout_, state, down_trays)) {
    if (f.busy) continue;
    const int repaired = offered_trays(f.idle_trays + f.repairable_trays, f.trays);
    const int lost =
        repaired - offered_trays(f.idle_trays, block_size(f.trays, f.repairable_trays)) - f.repairable_trays;
    trays += std::max(0, lost);
  }
  return trays * state.shape().gpus_per_tray + free_gpus_on_down_trays(state, down_trays);
}

namespace {

constexpr ParamDecl kParams[] = {
    {.key = "min_block_nodes",
     .value_name = "K",
     .default_text = "block size",
     .help = "a block with at least K idle trays (down trays excluded) is usable",
     .min = 1,
     .default_value = 0},
};

std::unique_ptr<PlacementPolicy> make(const PolicyConfig& config, const PolicyContext& context) {
  BlockLayout layout = make_block_layout(context);
  int largest = 1;
  for (const auto& trays : layout.blocks) largest = std::max(largest, static_cast<int>(trays.size()));
  // The declared range cannot know the machine: the largest block bounds K.
  const int min_nodes = *config.params.integer("min_block_nodes");
  if (min_nodes > largest)
    throw InputError(fmt::format("policy spec '{}': min_block_nodes: '{}' is not an integer in [1, {}]",
                                 config.text, min_nodes, largest));
  return std::make_unique<BlockPolicy>(config.text, std::move(layout), min_nodes, context.partial_operation);
}

}  // namespace

const PolicyType kBlockPolicy{
    .name = "block",
    .summary = "whole blocks, topology/block with --exclusive=topo for every job",
    .params = kParams,
    .make = make,
};

}  // namespace nvlsim
