#include "schedulers/tree_offer_sums.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "schedulers/cons_tres_select.hpp"

namespace nvlsim {

bool offer_sums_decide(const JobRequest& request) {
  return request.shards == 0 && request.cpus_per_gpu == 0;
}

void sum_offers(const ClusterState& state, const TreeChoice& choice, const JobRequest& request,
                TreeChoice::SwitchSums& sums) {
  const int per_tray = state.shape().gpus_per_tray;
  // What a tray with k free GPUs and a free core offers the request; without a CPU share, its free cores
  // change only the offer's CPUs.
  thread_local std::vector<std::optional<cons_tres::NodeOffer>> with_free;
  with_free.assign(static_cast<std::size_t>(per_tray) + 1, std::nullopt);
  int low = std::numeric_limits<int>::max(), high = std::numeric_limits<int>::min();
  for (int k = 1; k <= per_tray; ++k) {
    with_free[k] = cons_tres::offer_of(0, k, 1, per_tray, request, choice.version());
    if (!with_free[k]) continue;
    low = std::min(low, with_free[k]->weight);
    high = std::max(high, with_free[k]->weight);
  }
  if (low > high) low = high = 0;
  int min_free = 1;  // the fewest free GPUs of a tray with an offer
  while (min_free <= per_tray && !with_free[min_free]) ++min_free;
  sums.low = low;
  sums.weights = high - low + 1;
  sums.attached.assign(static_cast<std::size_t>(choice.switches()) * sums.weights, TreeChoice::OfferSum{});
  if (min_free > per_tray) return;
  thread_local std::vector<int> by_free;  // per switch with trays, per free count
  const std::size_t stride = static_cast<std::size_t>(per_tray) + 1;
  by_free.assign(choice.homes().size() * stride, 0);
  state.count_trays_with_cores_by_free(choice.home_trays(), min_free, by_free);
  for (std::size_t h = 0; h < choice.homes().size(); ++h)
    for (int k = min_free; k <= per_tray; ++k) {
      const int trays = by_free[h * stride + static_cast<std::size_t>(k)];
      if (!with_free[k] || trays == 0) continue;
      TreeChoice::OfferSum& sum = sums.at(choice.homes()[h], with_free[k]->weight - low);
      sum.nodes += trays;
      sum.cpus += trays * with_free[k]->cpus;
      sum.gpus += trays * with_free[k]->gpus;
      sum.free_cpus += trays * with_free[k]->free_cpus;
    }
}

}  // namespace nvlsim
