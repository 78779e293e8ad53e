#include "schedulers/tree_policy.hpp"

#include <stdexcept>
#include <utility>
#include <vector>

#include "schedulers/cons_tres_runs.hpp"
#include "schedulers/cons_tres_select.hpp"
#include "schedulers/shard_select.hpp"
#include "schedulers/tree_offer_sums.hpp"

namespace nvlsim {
namespace {

// Summing per switch costs about as much per switch as an offer costs per tray (measured on nvl72x1000:
// on a full machine, where few trays are offered, the sums were the slower); they are used when the
// trays to offer are more than this many per switch.
constexpr int kSumsBreakEven = 2;

}  // namespace

TreePolicy::TreePolicy(std::string name, SwitchTree tree, SlurmVersion version)
    : name_(std::move(name)), choice_(std::move(tree), version), version_(version) {}

std::optional<Allocation> TreePolicy::place(const ClusterState& state, const JobRequest& request) const {
  if (request.gpus < 1) throw std::invalid_argument("tree: a request needs at least one GPU");
  if (!may_fit(state, request)) return std::nullopt;
  if (request.shards > 0) {
    // A share job goes through the same _eval_nodes_topo, every tray that can serve at one weight
    // (docs/sharing.md, "Shares under tree"); on each chosen tray, its first GPU with enough free shares.
    std::vector<cons_tres::NodeOffer> node = cons_tres::share_offers(state, request);
    std::erase_if(node, [&](const cons_tres::NodeOffer& n) { return !choice_.under_a_switch(n.tray); });
    const auto trays = choice_.choose(node, request, cons_tres::share_demand(request));
    if (!trays) return std::nullopt;
    return cons_tres::share_allocation(state, *trays, request);
  }
  const cons_tres::Demand demand = cons_tres::initial_demand(state, request);
  if (choice_.ranged() && offer_sums_decide(request)) {
    const TreeChoice::OfferAt offer_at = [&](int tray) {
      return cons_tres::offer(state, tray, request, version_);
    };
    const auto chosen = [&](const TreeChoice::Decision& decision) -> std::optional<Allocation> {
      if (!decision.trays) return std::nullopt;
      return cons_tres::pick_gpus(state, *decision.trays, request, version_);
    };
    // A job that fits in one leaf is placed from the state's counts per leaf.
    const TrayGroups& leaves = choice_.leaf_groups();
    if (leaves != nullptr && state.tray_groups().groups() == leaves) {
      const TreeChoice::Decision decision =
          choice_.choose_in_one_leaf(state.tray_groups(), request, demand, offer_at);
      if (decision.decided) return chosen(decision);
    }
    // The trays the offers below would visit: the idle ones for whole trays, else those with a free GPU.
    // When they are many, placements are decided from the offers summed per switch; only the trays of the
    // leaves taken are offered one by one.
    const int offered =
        request.shape == RequestShape::nodes ? state.idle_trays() : state.trays_with_free_gpus();
    if (offered >= kSumsBreakEven * static_cast<int>(choice_.homes().size())) {
      thread_local TreeChoice::SwitchSums sums;  // kept between calls, as placements are millions
      sum_offers(state, choice_, request, sums);
      const TreeChoice::Decision decision = choice_.choose_from_sums(sums, request, demand, offer_at);
      if (decision.decided) return chosen(decision);
    }
  }
  // The nodes Slurm considers, ascending: for a whole-tray request the idle trays, read by runs.
  thread_local std::vector<cons_tres::NodeOffer> node;  // kept between calls, as placements are millions
  node.clear();
  if (cons_tres::idle_runs_decide(state, request)) {
    cons_tres::idle_offers(state, request, node);
    std::erase_if(node, [&](const cons_tres::NodeOffer& n) { return !choice_.under_a_switch(n.tray); });
  } else {
    state.for_each_tray_with_free_gpus([&](int tray) {
      if (!choice_.under_a_switch(tray)) return;
      if (auto offered = cons_tres::offer(state, tray, request, version_)) node.push_back(*offered);
    });
  }
  const auto trays = choice_.choose(node, request, demand);
  if (!trays) return std::nullopt;
  return cons_tres::pick_gpus(state, *trays, request, version_);
}

bool TreePolicy::may_fit(const ClusterState& state, const JobRequest& request) const {
  if (request.shards > 0) return cons_tres::shares_may_fit(state, request);
  return cons_tres::may_fit(state, request);
}

const PolicyType kTreePolicy{
    .name = "tree",
    .summary = "Slurm topology/tree over the InfiniBand fabric",
    .params = {},
    .make = [](const PolicyConfig& config, const PolicyContext& context) -> std::unique_ptr<PlacementPolicy> {
      return std::make_unique<TreePolicy>(config.text, make_switch_tree(context), context.slurm_version);
    },
};

}  // namespace nvlsim
