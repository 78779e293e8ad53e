#include "schedulers/sub_block_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "models/input_error.hpp"
#include "schedulers/node_gpus.hpp"
#include "schedulers/shard_select.hpp"

namespace nvlsim {

int segment_nodes(const SegmentOptions& options, int gpus, int nodes, int base_block_nodes) {
  int segment = options.segment;
  if (segment < 0 && !options.rules_for_small_jobs && nodes <= base_block_nodes) return nodes;
  if (segment < 0) {
    const auto rule = std::find_if(options.rules.begin(), options.rules.end(),
                                   [gpus](const SegmentRule& r) { return gpus >= r.min_gpus; });
    segment = rule == options.rules.end() ? 0 : rule->nodes;
  }
  if (segment == 0 || segment >= nodes) return nodes;
  while (nodes % segment != 0) --segment;
  return segment;
}

SubBlockPolicy::SubBlockPolicy(std::string name, BlockLayout layout, SegmentOptions options)
    : name_(std::move(name)),
      layout_(std::move(layout)),
      options_(options),
      domain_blocks_(aligned_block_trays(layout_)),
      failed_blocks_(layout_) {
  std::size_t largest = 0;
  for (const auto& block : layout_.blocks) largest = std::max(largest, block.size());
  segment_room_.assign(largest + 1, 0);
  for (int s = 1; s <= static_cast<int>(largest); ++s)
    for (const auto& block : layout_.blocks) segment_room_[s] += static_cast<int>(block.size()) / s * s;
}

std::vector<int> SubBlockPolicy::idle_trays(const ClusterState& state) const {
  const int blocks = static_cast<int>(layout_.blocks.size());
  std::vector<int> idle(blocks, 0);
  const bool domains = domain_blocks_ == state.shape().trays_per_domain;
  for (int b = 0; b < blocks; ++b) {
    if (domains) {
      idle[b] = state.idle_trays_in_domain(b);
      continue;
    }
    for (int tray : layout_.blocks[b]) idle[b] += state.tray_idle(tray);
  }
  return idle;
}

bool SubBlockPolicy::may_fit(const ClusterState& state, const JobRequest& request) const {
  if (request.shards > 0) return cons_tres::shares_may_fit(state, request);
  const ClusterShape& shape = state.shape();
  if (state.free_gpus() < request.gpus) return false;
  if (request.gpus < shape.gpus_per_tray || domain_blocks_ != shape.trays_per_domain) return true;
  const int nodes = nodes_for(shape, request.gpus);
  const int segment = segment_size(request, nodes);
  // A segment of at most a base block lies inside one block, so a block holds floor(idle / s) of them.
  const int whole = segment <= layout_.level_sizes.front() ? segment : 1;
  int room = 0;  // from the domains counted by idle trays, not a visit of each domain
  for (int idle = whole; idle <= shape.trays_per_domain && room < nodes; ++idle)
    room += state.domains_with_idle_trays(idle) * (idle / whole * whole);
  return room >= nodes;
}

int SubBlockPolicy::failure_stranded_gpus(const ClusterState& state, std::span<const int> down_trays) const {
  const int s = std::max(1, options_.segment);
  int trays = 0;
  for (const FailedBlock& f : failed_blocks_.of(layout_, state, down_trays)) {
    const int repaired = (f.idle_trays + f.repairable_trays) / s * s;
    trays += std::max(0, repaired - f.idle_trays / s * s - f.repairable_trays);
  }
  return trays * state.shape().gpus_per_tray + free_gpus_on_down_trays(state, down_trays);
}

std::optional<Allocation> SubBlockPolicy::place_on_one_tray(const ClusterState& state, int gpus) const {
  const int blocks = static_cast<int>(layout_.blocks.size());
  std::vector<int> offered(blocks, 0);  // trays with room for the job: nodes Slurm would find available
  for (int b = 0; b < blocks; ++b) {
    if (domain_blocks_ == state.shape().trays_per_domain) {  // block b is domain b
      offered[b] = state.trays_in_domain_with_at_least(b, gpus);
      continue;
    }
    for (int tray : layout_.blocks[b]) offered[b] += state.free_gpus_in_tray(tray) >= gpus;
  }
  std::vector<std::uint8_t> used(blocks, 0);
  const std::vector<BlockTake> takes = choose_blocks(layout_, offered, used, 1);
  if (takes.empty()) return std::nullopt;
  int best = -1;
  for (int tray : layout_.blocks[takes.front().block]) {
    const int free = state.free_gpus_in_tray(tray);
    if (free >= gpus && (best < 0 || free < state.free_gpus_in_tray(best))) best = tray;
  }
  Allocation allocation;
  state.lowest_free_gpus(best, gpus, allocation.gpus);
  return allocation;
}

std::optional<Allocation> SubBlockPolicy::place_shares(const ClusterState& state,
                                                       const JobRequest& request) const {
  if (!cons_tres::shares_may_fit(state, request)) return std::nullopt;
  const auto serves = [&](int tray) {
    return state.free_cpus_in_tray(tray) > 0 &&
           cons_tres::first_gpu_with_free_shards(state, tray, request) >= 0;
  };
  const int blocks = static_cast<int>(layout_.blocks.size());
  std::vector<int> offered(blocks, 0);
  for (int b = 0; b < blocks; ++b)
    for (int tray : layout_.blocks[b]) offered[b] += serves(tray);
  // A job that fits in one base block stays one segment, as a whole-GPU job does; a larger one goes node
  // by node.
  const int segment = request.gpus <= layout_.level_sizes.front() ? request.gpus : 1;
  const std::vector<int> taken = place_segments(offered, request.gpus, segment);
  if (taken.empty()) return std::nullopt;
  std::vector<int> trays;
  for (int b = 0; b < blocks; ++b) {
    if (taken[b] == 0) continue;
    // As for small whole-GPU jobs, the busiest trays that serve first (fewest free GPUs, lowest index).
    std::vector<int> serving;
    for (int tray : layout_.blocks[b])
      if (serves(tray)) serving.push_back(tray);
    std::stable_sort(serving.begin(), serving.end(),
                     [&](int a, int c) { return state.free_gpus_in_tray(a) < state.free_gpus_in_tray(c); });
    trays.insert(trays.end(), serving.begin(), serving.begin() + taken[b]);
  }
  std::sort(trays.begin(), trays.end());
  return cons_tres::share_allocation(state, trays, request);
}

std::vector<int> SubBlockPolicy::place_segments(std::vector<int> offered, int nodes, int segment) const {
  const int blocks = static_cast<int>(layout_.blocks.size());
  std::vector<int> taken(blocks, 0);
  std::vector<std::uint8_t> used(blocks, 0);
  std::vector<int> open(blocks);
  for (int placed = 0; placed < nodes; placed += segment) {
    for (int b = 0; b < blocks; ++b) open[b] = options_.spread && used[b] ? 0 : offered[b];
    const std::vector<BlockTake> takes = choose_blocks(layout_, open, used, segment);
    if (takes.empty()) return {};
    for (const BlockTake& take : takes) {
      offered[take.block] -= take.nodes;
      taken[take.block] += take.nodes;
    }
  }
  return taken;
}

SegmentOptions SubBlockPolicy::options_for(const JobRequest& request) const {
  if (options_.segment >= 0 || options_.rules_for_small_jobs || request.segment_nodes <= 0) return options_;
  // The class's segment stands in for the built-in table's entry, as the table's own would apply.
  SegmentOptions options = options_;
  options.rules = {{0, request.segment_nodes}};
  return options;
}

int SubBlockPolicy::segment_size(const JobRequest& request, int nodes) const {
  const int base = layout_.level_sizes.front();
  const SegmentOptions options = options_for(request);
  const int gpus = request.gpus;
  const int segment = segment_nodes(options, gpus, nodes, base);
  if (options.segment >= 0 || options.rules_for_small_jobs || segment >= nodes) return segment;
  // The built-in table's segments may not fit the machine at all (a 576-GPU job on 8 racks needs 9
  // segments of 16, and a rack holds one): then whole base blocks, as an operator would resubmit it.
  const int room = segment < static_cast<int>(segment_room_.size()) ? segment_room_[segment] : 0;
  return room >= nodes ? segment : segment_nodes(SegmentOptions{base}, gpus, nodes, base);
}

std::optional<Allocation> SubBlockPolicy::place(const ClusterState& state, const JobRequest& request) const {
  if (request.gpus < 1) throw std::invalid_argument("sub-block: a request needs at least one GPU");
  if (request.shards > 0) return place_shares(state, request);
  const ClusterShape& shape = state.shape();
  if (request.gpus < shape.gpus_per_tray) return place_on_one_tray(state, request.gpus);
  const int nodes = nodes_for(shape, request.gpus);
  const int segment = segment_size(request, nodes);
  const int blocks = static_cast<int>(layout_.blocks.size());
  const std::vector<int> idle = idle_trays(state);
  std::vector<int> taken;
  if (!options_.consolidate) {
    taken = place_segments(idle, nodes, segment);
  } else {
    // A base block offers whole segments only (a segment of at most a base block never splits), so
    // a group counted that way holds the job unless segments span base blocks; then try the next.
    std::vector<int> whole = idle;
    if (segment <= layout_.level_sizes.front()) {
      for (int& n : whole) n -= n % segment;
    }
    for (const BlockRange& group : fitting_groups(layout_, whole, nodes)) {
      std::vector<int> inside(blocks, 0);
      std::copy(idle.begin() + group.first, idle.begin() + group.end, inside.begin() + group.first);
      taken = place_segments(std::move(inside), nodes, segment);
      if (!taken.empty()) break;
    }
  }
  if (taken.empty()) return std::nullopt;
  std::vector<int> trays;
  for (int b = 0; b < blocks; ++b) {
    for (auto tray = layout_.blocks[b].begin(); taken[b] > 0; ++tray) {
      if (state.tray_idle(*tray)) {
        trays.push_back(*tray);
        --taken[b];
      }
    }
  }
  Allocation allocation;
  allocation.gpus = gpus_on_trays(shape, std::move(trays), request.gpus);
  return allocation;
}

namespace {

constexpr ParamDecl kParams[] = {
    {.key = "segment",
     .value_name = "S",
     .default_text = "by the table",
     .help = "nodes per segment for every job; 0 or none = the whole job is one segment",
     .zero_word = "none"},
    {.key = "segment_rules",
     .type = ParamType::pairs,
     .value_name = "G>S/G>S/...",
     .default_text = "128>16/32>4/0>1",
     .help = "jobs of at least G GPUs get S-node segments (first match, by descending G)"},
    {.key = "spread",
     .type = ParamType::flag,
     .value_name = "1",
     .default_text = "0",
     .help = "Slurm's --spread-segments: no two segments of a job in one base block",
     .max = 1,
     .default_value = 0},
    {.key = "consolidate",
     .type = ParamType::flag,
     .value_name = "1",
     .default_text = "0",
     .help = "Slurm's --consolidate-segments: all segments inside one block of the job's level",
     .max = 1,
     .default_value = 0},
};

std::unique_ptr<PlacementPolicy> make(const PolicyConfig& config, const PolicyContext& context) {
  SegmentOptions options;
  options.segment = config.params.integer("segment").value_or(-1);
  options.spread = config.params.flag("spread");
  options.consolidate = config.params.flag("consolidate");
  if (const IntPairs* rules = config.params.pairs("segment_rules")) {
    options.rules.clear();
    for (const auto& [min_gpus, nodes] : *rules) options.rules.push_back({min_gpus, nodes});
    std::stable_sort(options.rules.begin(), options.rules.end(),
                     [](const SegmentRule& x, const SegmentRule& y) { return x.min_gpus > y.min_gpus; });
    // Two rules of one threshold: the first match wins, so the second would be silently dead.
    for (std::size_t i = 1; i < options.rules.size(); ++i) {
      if (options.rules[i].min_gpus == options.rules[i - 1].min_gpus)
        throw InputError(
            fmt::format("policy spec '{}': segment_rules: two rules for jobs of at least {} GPUs",
                        config.text, options.rules[i].min_gpus));
    }
    options.rules_for_small_jobs = true;
  }
  return std::make_unique<SubBlockPolicy>(config.text, make_block_layout(context), options);
}

}  // namespace

const PolicyType kSubBlockPolicy{
    .name = "sub-block",
    .summary = "blocks without exclusivity, with segments (--segment)",
    .params = kParams,
    .make = make,
};

}  // namespace nvlsim
