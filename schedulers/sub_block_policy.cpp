#include "schedulers/sub_block_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "models/input_error.hpp"
#include "schedulers/cons_tres_select.hpp"
#include "schedulers/shard_select.hpp"

namespace nvlsim {

int asked_segment(const SegmentOptions& options, int gpus, int nodes, int base_block_nodes) {
  int segment = options.segment;
  if (segment < 0 && !options.rules_for_small_jobs && nodes <= base_block_nodes) return 0;
  if (segment < 0) {
    const auto rule = std::find_if(options.rules.begin(), options.rules.end(),
                                   [gpus](const SegmentRule& r) { return gpus >= r.min_gpus; });
    segment = rule == options.rules.end() ? 0 : rule->nodes;
  }
  return segment >= nodes ? 0 : segment;
}

std::string segment_refusal(int segment, int nodes, int base_block_nodes) {
  constexpr const char* kSlurm = "Requested topology configuration is not available";
  if (segment > base_block_nodes)
    return fmt::format("{} (--segment={} is larger than a base block of {} nodes)", kSlurm, segment,
                       base_block_nodes);
  if (segment > 0 && nodes % segment != 0)
    return fmt::format("{} (--segment={} does not divide the job's {} nodes)", kSlurm, segment, nodes);
  return {};
}

SubBlockPolicy::SubBlockPolicy(std::string name, BlockLayout layout, SegmentOptions options,
                               const ClusterShape& shape)
    : name_(std::move(name)),
      layout_(std::move(layout)),
      eval_(layout_, shape),
      options_(std::move(options)),
      failed_blocks_(layout_),
      gpus_per_tray_(shape.gpus_per_tray) {
  std::size_t largest = 0;
  for (const auto& block : layout_.blocks) largest = std::max(largest, block.size());
  segment_room_.assign(largest + 1, 0);
  for (int s = 1; s <= static_cast<int>(largest); ++s)
    for (const auto& block : layout_.blocks) segment_room_[s] += static_cast<int>(block.size()) / s * s;
}

SegmentOptions SubBlockPolicy::options_for(const JobRequest& request) const {
  if (options_.segment >= 0 || options_.rules_for_small_jobs || request.segment_nodes <= 0) return options_;
  // The class's segment stands in for the built-in table's entry, as the table's own would apply.
  SegmentOptions options = options_;
  options.rules = {{0, request.segment_nodes}};
  return options;
}

Segments SubBlockPolicy::segment_for(const JobRequest& request) const {
  Segments segments{0, options_.spread, options_.consolidate};
  // Only a job of whole trays asks a segment: Slurm refuses --segment with a GPU count alone.
  if (request.shape != RequestShape::nodes || request.shards > 0) return segments;
  const int nodes = request.gpus / gpus_per_tray_;
  const int base = eval_.base_nodes();
  const SegmentOptions options = options_for(request);
  int segment = asked_segment(options, request.gpus, nodes, base);
  if (options.round && segment > 0) {
    // The largest segment Slurm takes: it divides the nodes and fits a base block.
    const auto divisor_at_most = [&](int most) {
      int s = std::min(most, base);
      while (s > 1 && nodes % s != 0) --s;
      return s;
    };
    segment = divisor_at_most(segment);
    // Table segments that could never fit the machine become whole base blocks, as an operator would
    // resubmit the job.
    const bool table = options.segment < 0 && !options.rules_for_small_jobs;
    if (table && segment_room_[segment] < nodes) segment = divisor_at_most(base);
    if (segment >= nodes) segment = 0;
  }
  segments.nodes = segment;
  return segments;
}

std::vector<std::string> SubBlockPolicy::slurm_options(const JobRequest& request) const {
  std::vector<std::string> options = slurm_request_options(request, gpus_per_tray_);
  if (const int segment = segment_for(request).nodes; segment > 0)
    options.push_back(fmt::format("--segment={}", segment));
  return options;
}

std::string SubBlockPolicy::refusal(const JobRequest& request) const {
  if (std::string why = gpu_count_refusal(eval_, request, gpus_per_tray_); !why.empty()) return why;
  const Segments segments = segment_for(request);
  return segment_refusal(segments.nodes, request.gpus / gpus_per_tray_, eval_.base_nodes());
}

bool SubBlockPolicy::may_fit(const ClusterState& state, const JobRequest& request) const {
  if (request.shards > 0) return cons_tres::shares_may_fit(state, request);
  if (!cons_tres::may_fit(state, request)) return false;
  return request.shape == RequestShape::nodes || some_block_has_free(state, eval_, request.gpus);
}

std::optional<Allocation> SubBlockPolicy::place(const ClusterState& state, const JobRequest& request) const {
  if (request.gpus < 1) throw std::invalid_argument("sub-block: a request needs at least one GPU");
  if (!may_fit(state, request)) return std::nullopt;
  if (request.shards > 0) {
    const std::vector<cons_tres::NodeOffer> offers = cons_tres::share_offers(state, request);
    const BlockChoice choice = eval_.choose(offers, request, cons_tres::share_demand(request), Segments{});
    if (!choice.taken) return std::nullopt;
    return cons_tres::share_allocation(state, *choice.taken, request);
  }
  const Segments segments = segment_for(request);
  std::optional<BlockChoice> choice = eval_.choose_by_domain(state, request, segments, {});
  if (!choice) {
    std::vector<cons_tres::NodeOffer> offers;
    state.for_each_tray_with_free_gpus([&](int tray) {
      if (auto offer = cons_tres::offer(state, tray, request, SlurmVersion::v24_11)) offers.push_back(*offer);
    });
    choice = eval_.choose(offers, request, cons_tres::initial_demand(state, request), segments);
  }
  if (!choice->taken) return std::nullopt;
  return cons_tres::pick_gpus(state, *choice->taken, request, SlurmVersion::v24_11);
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

namespace {

constexpr ParamDecl kParams[] = {
    {.key = "segment",
     .value_name = "S",
     .default_text = "by the table",
     .help =
         "nodes per segment (--segment) for every job of more than S whole trays; 0 or none = no segments",
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
     .help = "Slurm 25.11's --spread-segments: no two segments of a job in one base block",
     .max = 1,
     .default_value = 0},
    {.key = "consolidate",
     .type = ParamType::flag,
     .value_name = "1",
     .default_text = "0",
     .help = "Slurm 25.11's --consolidate-segments: all segments inside one block of the job's level",
     .max = 1,
     .default_value = 0},
    {.key = "round",
     .type = ParamType::flag,
     .value_name = "1",
     .default_text = "0",
     .help = "a segment Slurm refuses becomes the largest it takes that divides the job (nvlsim's rule "
             "before its 24.11 check)",
     .max = 1,
     .default_value = 0},
};

std::unique_ptr<PlacementPolicy> make(const PolicyConfig& config, const PolicyContext& context) {
  if (context.slurm_version == SlurmVersion::v22_05)
    throw InputError(
        fmt::format("policy spec '{}': topology/block needs Slurm 23.11 or later, not --slurm-version "
                    "22.05",
                    config.text));
  SegmentOptions options;
  options.segment = config.params.integer("segment").value_or(-1);
  options.spread = config.params.flag("spread");
  options.consolidate = config.params.flag("consolidate");
  options.round = config.params.flag("round");
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
  return std::make_unique<SubBlockPolicy>(config.text, make_block_layout(context), std::move(options),
                                          context.shape);
}

}  // namespace

const PolicyType kSubBlockPolicy{
    .name = "sub-block",
    .summary = "blocks without exclusivity, with segments (--segment)",
    .params = kParams,
    .make = make,
};

}  // namespace nvlsim
