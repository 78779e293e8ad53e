#include "schedulers/tree_policy.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

namespace nvlsim {
namespace {

// Appends `count` free GPUs of the leaf's trays (which must have them), lowest ids first.
void take_from_leaf(const ClusterState& state, const std::vector<int>& trays, int count,
                    std::vector<int>& out) {
  const int per_tray = state.shape().gpus_per_tray;
  int tightest = -1;
  if (count <= per_tray) {
    for (int tray : trays) {
      const int free = state.free_gpus_in_tray(tray);
      if (free >= count && (tightest < 0 || free < state.free_gpus_in_tray(tightest))) tightest = tray;
    }
  }
  for (int tray : trays) {
    if (tightest >= 0 && tray != tightest) continue;
    for (int gpu = state.shape().first_gpu_of_tray(tray);
         gpu < state.shape().first_gpu_of_tray(tray + 1) && count > 0; ++gpu) {
      if (state.gpu_free(gpu)) {
        out.push_back(gpu);
        --count;
      }
    }
  }
}

}  // namespace

TreePolicy::TreePolicy(std::string name, SwitchTree tree) : name_(std::move(name)), tree_(std::move(tree)) {}

std::optional<Allocation> TreePolicy::place(const ClusterState& state, const JobRequest& request) const {
  if (request.gpus < 1) throw std::invalid_argument("tree: a request needs at least one GPU");
  const int switches = static_cast<int>(tree_.trays.size());
  std::vector<int> free(switches, 0);
  int best = -1;
  for (int s : tree_.bottom_up) {
    for (int tray : tree_.trays[s]) free[s] += state.free_gpus_in_tray(tray);
    for (int child : tree_.children[s]) free[s] += free[child];
  }
  for (int s = 0; s < switches; ++s) {
    if (free[s] < request.gpus) continue;
    if (best < 0 || tree_.level[s] < tree_.level[best] ||
        (tree_.level[s] == tree_.level[best] && free[s] < free[best])) {
      best = s;
    }
  }
  if (best < 0) return std::nullopt;
  // The chosen switch's leaves (switches with trays), in index order.
  std::vector<int> leaves;
  std::vector<int> pending = {best};
  while (!pending.empty()) {
    const int s = pending.back();
    pending.pop_back();
    if (!tree_.trays[s].empty() && free[s] > 0) leaves.push_back(s);
    pending.insert(pending.end(), tree_.children[s].begin(), tree_.children[s].end());
  }
  std::sort(leaves.begin(), leaves.end());
  Allocation allocation;
  allocation.gpus.reserve(request.gpus);
  for (int left = request.gpus; left > 0;) {
    int pick = -1;  // tightest leaf holding `left`, else the fullest
    for (int leaf : leaves) {
      if (free[leaf] == 0) continue;
      const bool fits = free[leaf] >= left;
      const bool pick_fits = pick >= 0 && free[pick] >= left;
      if (pick < 0 || (fits && (!pick_fits || free[leaf] < free[pick])) ||
          (!fits && !pick_fits && free[leaf] > free[pick])) {
        pick = leaf;
      }
    }
    const int take = std::min(left, free[pick]);
    take_from_leaf(state, tree_.trays[pick], take, allocation.gpus);
    free[pick] = 0;
    left -= take;
  }
  std::sort(allocation.gpus.begin(), allocation.gpus.end());
  return allocation;
}

std::unique_ptr<PlacementPolicy> make_tree_policy(const PolicySpec& spec, const PolicyContext& context) {
  check_param_keys(spec, {});
  return std::make_unique<TreePolicy>(spec.text, make_switch_tree(context));
}

}  // namespace nvlsim
