#pragma once
// Slurm's _eval_nodes_topo (select/cons_tres with topology/tree; 22.05's job_test.c, 24.11's
// topology/tree/eval_nodes_tree.c): which of the offered nodes a job gets, given the switch tree. TreePolicy
// asks it; it knows nothing of the cluster state.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "schedulers/cluster_state.hpp"
#include "schedulers/cons_tres_select.hpp"
#include "schedulers/job_request.hpp"
#include "schedulers/switch_tree.hpp"

namespace nvlsim {

// Switches the choice takes: it keeps the hops between every two, 256 MiB at this size.
inline constexpr std::size_t kMaxTreeSwitches = 8192;
// The largest count-by-leaf bitsets (words per level: largest leaf x leaves / 64) tree asks the state
// to keep; above it (a topology of one huge leaf and thousands of tiny ones), it sums per placement instead.
inline constexpr std::size_t kMaxLeafIndexWords = std::size_t{1} << 16;

class TreeChoice {
 public:
  // What offers of one weight give, summed.
  struct OfferSum {
    int nodes = 0;
    int cpus = 0;  // from sum_offers (tree_offer_sums.hpp), only a lower bound: one per node
    int gpus = 0;
    int free_cpus = 0;  // the nodes' free cores; from sum_offers, the same lower bound
  };
  // Offers summed per switch and weight: at(s, w) over the trays attached to switch s, of weight low + w.
  struct SwitchSums {
    int low = 0;
    int weights = 0;
    std::vector<OfferSum> attached;

    OfferSum& at(int s, int w) { return attached[static_cast<std::size_t>(s) * weights + w]; }
    const OfferSum& at(int s, int w) const { return attached[static_cast<std::size_t>(s) * weights + w]; }
  };
  struct Decision {
    bool decided = false;                   // false: only the per-node walk, over every offer, can tell
    std::optional<std::vector<int>> trays;  // in the order taken
  };
  // The offer of one tray, or nullopt when it offers none.
  using OfferAt = std::function<std::optional<cons_tres::NodeOffer>(int tray)>;

  // Throws InputError for more than kMaxTreeSwitches switches.
  // `version`: the Slurm release whose rules it follows (docs/policies.md, "Slurm versions").
  TreeChoice(SwitchTree tree, SlurmVersion version);

  // True when some switch has the tray below it: Slurm offers no other node to a topology job.
  bool under_a_switch(int tray) const {
    return tray >= 0 && tray < static_cast<int>(above_.size()) && !above_[tray].empty();
  }

  // The trays chosen from `node` (offers ascending by tray, each under a switch), in the order Slurm takes
  // them, or nullopt.
  // Under the highest switch with enough nodes, the nodes of the lowest weights that suffice; then leaf
  // switches one at a time, the nearest to those used and the tightest in nodes, their nodes in order.
  // When the tree has a single path from every switch up and the lowest weight under that switch
  // suffices, as it does for most jobs, it works per switch: O(nodes + switches x weights + leaves taken
  // x switches). Otherwise per node: O(nodes x levels + leaves taken x switches).
  std::optional<std::vector<int>> choose(std::span<const cons_tres::NodeOffer> node,
                                         const JobRequest& request, cons_tres::Demand demand) const;
  // True when every switch has one path up and every switch's trays are consecutive: then
  // `choose_from_sums` may decide from sums over those runs of trays.
  bool ranged() const { return home_trays_ != nullptr; }
  // The switches with trays of their own, ascending, and (when ranged()) their trays, one run each.
  std::span<const int> homes() const { return homes_; }
  std::span<const TrayRun> home_trays() const {
    return ranged() ? std::span<const TrayRun>(*home_trays_) : std::span<const TrayRun>{};
  }
  // home_trays() when `choose_in_one_leaf` applies: the tree is ranged(), has one top switch, only leaves
  // have trays, and a TrayGroupIndex over them stays small (kMaxLeafIndexWords). Else nullptr.
  const TrayGroups& leaf_groups() const { return leaf_groups_; }
  // `choose`'s answer when the job fits in the first leaf it takes, as most jobs do, read from `index`
  // (counts per leaf_groups(), kept by the state: ClusterState::index_groups) and the offers of that
  // leaf's trays; not decided otherwise. Requires leaf_groups() to be the index's groups and
  // offer_sums_decide(request) (no CPU share: 24.11's free-core tests cannot bind, and the first leaf is
  // 22.05's). O(largest leaf + leaves / 64 + the leaf's trays): no pass over the switches.
  Decision choose_in_one_leaf(const TrayGroupIndex& index, const JobRequest& request,
                              cons_tres::Demand demand, const OfferAt& offer_at) const;
  // `choose`'s per-switch path from the offers' sums per switch (SwitchSums sized for this tree's switches)
  // and, for the trays of the leaves taken, their offers. Not decided when the per-node walk must decide,
  // as when the sums' CPUs fall short, or (24.11, whose switches' free cores count) the job needs more
  // CPUs than nodes: the sums' free cores may be lower bounds. Requires ranged().
  Decision choose_from_sums(const SwitchSums& sums, const JobRequest& request, cons_tres::Demand demand,
                            const OfferAt& offer_at) const;
  int switches() const { return static_cast<int>(tree_.trays.size()); }
  SlurmVersion version() const { return version_; }
  // The per-node walk for every case: what `choose` must agree with (tests check it does).
  std::optional<std::vector<int>> choose_node_by_node(std::span<const cons_tres::NodeOffer> node,
                                                      const JobRequest& request,
                                                      cons_tres::Demand demand) const;

 private:
  // The leaves that may be chosen (ascending; the others have no node to give), and per switch: nodes
  // counted toward it, the switches required, the hops summed from those used (kept for the leaves only),
  // and (24.11: switch_cpu_cnt; empty under 22.05) the free cores of every node offered below it.
  struct LeafSearch {
    std::span<const int> leaves;
    std::span<int> count;
    std::span<const char> required;
    std::span<std::uint32_t> distance;
    std::span<const int> cpus;
  };
  // Adds the row's hops to the sums, for the switches `at` only (an unreachable switch stays unreachable).
  static void add_distance(std::span<std::uint32_t> sum, const std::vector<std::uint32_t>& row,
                           std::span<const int> at);
  // Whether the rules are 24.11's: switches' free cores count toward a fit, and a leaf used up is taken off
  // its ancestors' counts.
  bool counts_cpus() const { return version_ == SlurmVersion::v24_11; }
  // The top switch: the highest with at least demand.nodes nodes (24.11: and at least demand.cpus free
  // cores, `cpus`) and, among those, the lowest weight (a later switch wins ties). -1 when none.
  int top_switch(std::span<const int> count, std::span<const int> lowest, std::span<const int> cpus,
                 const cons_tres::Demand& demand) const;
  // The next leaf to take nodes from: not required, the nearest to those used, then the tightest that
  // fits the demand's nodes (24.11: and CPUs), else the largest, comparing parents while both do not fit.
  // A nearer leaf wins if it compares no worse (22.05) or if it fits (24.11). -1 when none is left.
  int next_leaf(const LeafSearch& search, const cons_tres::Demand& demand) const;
  // 24.11's _decrement_node_cnt: `taken` off the count of switch s and of each switch above it, down to 0
  // (24.11 only: under 22.05 a top switch's parent is switch 0).
  void take_off(std::span<int> count, int s, int taken) const;
  // 24.11's switch_cpu_cnt from free cores summed per switch with trays: summed up the tree, as the counts
  // are (requires single_path_).
  void sum_up(std::span<int> below) const;
  // `choose` when every switch has one path up, counting per switch and weight rather than per node.
  Decision choose_by_switch(std::span<const cons_tres::NodeOffer> node, const JobRequest& request,
                            cons_tres::Demand demand) const;
  // Takes a leaf's offer when it has the best weight; false once nothing more is to be taken from the leaf.
  bool take_best(const cons_tres::NodeOffer& n, int best_weight, const JobRequest& request,
                 cons_tres::Demand& demand, std::vector<int>& picked) const;
  // Its part after the sums: the top switch, then its leaves. Decided unless the lowest weight under the
  // top switch does not suffice alone.
  // leaf_offers(leaf, visit) calls visit(offer) for the leaf's offers in tray order while it returns true.
  template <typename LeafOffers>
  Decision decide(const SwitchSums& sums, const JobRequest& request, cons_tres::Demand demand,
                  LeafOffers leaf_offers) const;

  SwitchTree tree_;
  SlurmVersion version_;
  std::vector<std::vector<int>> above_;  // per tray: every switch it is below, ascending
  // Per switch: its parent as Slurm keeps it (the last switch to list it); for a top switch 0 under
  // 22.05, -1 (SWITCH_NO_PARENT) under 24.11.
  std::vector<int> parent_;
  std::vector<std::vector<std::uint32_t>> distance_;  // switch hops between switches; kUnreachable if none
  std::vector<int> leaves_;                           // the switches of level 0, ascending
  // Set when every switch has at most one parent and every tray hangs from at most one switch, so that
  // counts add up the tree: then home_ (per tray: the switch listing it, or -1), up_ (per switch: its
  // parent, or -1), root_, roots_ and the subtree intervals (switch t is below s iff enter_[s] <= enter_[t] <
  // leave_[s]).
  bool single_path_ = false;
  std::vector<int> home_;
  std::vector<int> up_;
  std::vector<int> root_;       // per switch: the top switch above it, or itself
  std::vector<int> roots_;      // the top switches, ascending
  std::vector<int> root_slot_;  // per switch: its top switch's place in roots_
  std::vector<int> enter_;
  std::vector<int> leave_;
  std::vector<int> homes_;  // when single_path_
  TrayGroups home_trays_;   // when ranged()
  TrayGroups leaf_groups_;
};

}  // namespace nvlsim
