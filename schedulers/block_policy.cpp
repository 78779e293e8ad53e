#include "schedulers/block_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "models/input_error.hpp"
#include "schedulers/cons_tres_select.hpp"
#include "schedulers/node_gpus.hpp"

namespace nvlsim {

BlockPolicy::BlockPolicy(std::string name, BlockLayout layout, int min_block_nodes, const ClusterShape& shape)
    : name_(std::move(name)),
      layout_(std::move(layout)),
      eval_(layout_, shape),
      min_block_nodes_(min_block_nodes),
      failed_blocks_(layout_),
      gpus_per_tray_(shape.gpus_per_tray) {}

std::string BlockPolicy::refusal(const JobRequest& request) const {
  return gpu_count_refusal(eval_, request.shards > 0 ? JobRequest{.gpus = request.gpus} : request,
                           gpus_per_tray_);
}

std::vector<std::string> BlockPolicy::slurm_options(const JobRequest& request) const {
  std::vector<std::string> options = slurm_request_options(request, gpus_per_tray_);
  options.emplace_back("--exclusive=topo");
  return options;
}

OpenDomains BlockPolicy::open_domains(const ClusterState& state) const {
  thread_local std::vector<int> extra;  // kept between calls: the reservation places many times a pass
  extra.clear();
  state.for_each_domain_with_down_gpus([&](int d) {
    if (open(state, d)) extra.push_back(d);
  });
  return OpenDomains{false, extra};
}

bool BlockPolicy::open(const ClusterState& state, int b) const {
  if (eval_.by_domain())
    return state.domain_without_jobs(b) &&
           (min_block_nodes_ == 0 || state.idle_trays_in_domain(b) >= min_block_nodes_);
  int idle = 0;
  for (int tray : layout_.blocks[b]) {
    if (tray_busy(state, tray)) return false;
    idle += state.tray_idle(tray);
  }
  return offered_trays(idle) > 0 || min_block_nodes_ == 0;
}

bool BlockPolicy::may_fit(const ClusterState& state, const JobRequest& request) const {
  if (request.shards > 0)
    return request.shards <= state.shards_per_gpu() && may_fit(state, JobRequest{.gpus = request.gpus});
  if (!cons_tres::may_fit(state, request)) return false;
  if (!eval_.by_domain())
    return request.shape == RequestShape::nodes || some_block_has_free(state, eval_, request.gpus);
  // The open blocks are the domains with every GPU free and the open ones with a GPU down: a GPU count needs
  // one with its GPUs free, whole trays enough idle trays in a block of their level.
  const ClusterShape& shape = state.shape();
  const OpenDomains open = open_domains(state);
  const bool any_free = state.domains_with_free(shape.gpus_per_domain()) > 0;
  if (request.shape == RequestShape::gpus) {
    if (request.gpus > shape.gpus_per_domain()) return false;
    return any_free || std::any_of(open.extra.begin(), open.extra.end(),
                                   [&](int d) { return state.free_gpus_in_domain(d) >= request.gpus; });
  }
  const int nodes = request.gpus / shape.gpus_per_tray;
  const int width = eval_.blocks_per_group(nodes);
  if (width == 1)
    return (any_free && nodes <= shape.trays_per_domain) ||
           std::any_of(open.extra.begin(), open.extra.end(),
                       [&](int d) { return state.idle_trays_in_domain(d) >= nodes; });
  auto extra = open.extra.begin();
  for (int first = 0; first < shape.domains; first += width) {
    int idle = 0;
    for (int d = first; d < std::min(shape.domains, first + width); ++d) {
      while (extra != open.extra.end() && *extra < d) ++extra;
      const bool is_extra = extra != open.extra.end() && *extra == d;
      if (is_extra || state.free_gpus_in_domain(d) == shape.gpus_per_domain())
        idle += state.idle_trays_in_domain(d);
    }
    if (idle >= nodes) return true;
  }
  return false;
}

std::optional<Allocation> BlockPolicy::place(const ClusterState& state, const JobRequest& request) const {
  if (request.gpus < 1) throw std::invalid_argument("block: a request needs at least one GPU");
  if (request.shards > 0) {
    // --exclusive=topo gives the job its blocks alone, shares or not: nothing could share its GPU, so it
    // holds them whole (docs/sharing.md, "Shares under block and sub-block"). Shares no GPU has never fit.
    if (request.shards > state.shards_per_gpu()) return std::nullopt;
    return place(state, JobRequest{.gpus = request.gpus});
  }
  if (!may_fit(state, request)) return std::nullopt;
  // Slurm takes every tray of a base block some job runs in out of the job's choice (_block_by_topology).
  std::optional<BlockChoice> choice;
  if (eval_.by_domain()) choice = eval_.choose_by_domain(state, request, Segments{}, open_domains(state));
  if (!choice) {
    std::vector<cons_tres::NodeOffer> offers;
    for (int b = 0; b < eval_.blocks(); ++b) {
      if (!open(state, b)) continue;
      for (int tray : layout_.blocks[b])
        if (auto offer = cons_tres::offer(state, tray, request, SlurmVersion::v24_11))
          offers.push_back(*offer);
    }
    std::sort(offers.begin(), offers.end(),
              [](const cons_tres::NodeOffer& a, const cons_tres::NodeOffer& b) { return a.tray < b.tray; });
    choice = eval_.choose(offers, request, cons_tres::initial_demand(state, request), Segments{});
  }
  if (!choice->taken) return std::nullopt;
  Allocation allocation = cons_tres::pick_gpus(state, *choice->taken, request, SlurmVersion::v24_11);
  std::vector<char> used(eval_.blocks(), 0);
  for (int tray : *choice->taken) used[eval_.block_of(tray)] = 1;
  for (int b = 0; b < eval_.blocks(); ++b)
    if (used[b])
      allocation.held_trays.insert(allocation.held_trays.end(), layout_.blocks[b].begin(),
                                   layout_.blocks[b].end());
  std::sort(allocation.held_trays.begin(), allocation.held_trays.end());
  return allocation;
}

int BlockPolicy::failure_stranded_gpus(const ClusterState& state, std::span<const int> down_trays) const {
  int trays = 0;
  for (const FailedBlock& f : failed_blocks_.of(layout_, state, down_trays)) {
    if (f.busy) continue;
    const int lost =
        offered_trays(f.idle_trays + f.repairable_trays) - offered_trays(f.idle_trays) - f.repairable_trays;
    trays += std::max(0, lost);
  }
  return trays * state.shape().gpus_per_tray + free_gpus_on_down_trays(state, down_trays);
}

namespace {

constexpr ParamDecl kParams[] = {
    {.key = "min_block_nodes",
     .value_name = "K",
     .default_text = "none (Slurm)",
     .help = "nvlsim's operator rule, not Slurm's: a block is open only while K of its trays are idle "
             "and whole",
     .min = 1,
     .default_value = 0},
};

std::unique_ptr<PlacementPolicy> make(const PolicyConfig& config, const PolicyContext& context) {
  if (context.slurm_version == SlurmVersion::v22_05)
    throw InputError(
        fmt::format("policy spec '{}': topology/block needs Slurm 23.11 or later, not --slurm-version "
                    "22.05",
                    config.text));
  BlockLayout layout = make_block_layout(context);
  int largest = 1;
  for (const auto& trays : layout.blocks) largest = std::max(largest, static_cast<int>(trays.size()));
  // The declared range cannot know the machine: the largest block bounds K.
  const int min_nodes = *config.params.integer("min_block_nodes");
  if (min_nodes > largest)
    throw InputError(fmt::format("policy spec '{}': min_block_nodes: '{}' is not an integer in [1, {}]",
                                 config.text, min_nodes, largest));
  return std::make_unique<BlockPolicy>(config.text, std::move(layout), min_nodes, context.shape);
}

}  // namespace

const PolicyType kBlockPolicy{
    .name = "block",
    .summary = "whole blocks, topology/block with --exclusive=topo for every job",
    .params = kParams,
    .make = make,
};

}  // namespace nvlsim
