#include "schedulers/per_gpu_policy.hpp"

#include <stdexcept>
#include <vector>

#include "schedulers/cons_tres_runs.hpp"
#include "schedulers/cons_tres_select.hpp"
#include "schedulers/shard_select.hpp"

namespace nvlsim {
namespace {

// cons_tres's nodes for the request: from the runs of trays where they decide, else from every offer.
// (Both runs-based paths serve requests without a CPU share, where the Slurm versions agree.)
std::optional<std::vector<int>> choose_trays(const ClusterState& state, const JobRequest& request,
                                             SlurmVersion version) {
  if (cons_tres::idle_runs_decide(state, request)) return cons_tres::eval_idle_runs(state, request);
  if (cons_tres::one_tray_may_decide(request))
    if (const std::optional<int> tray = cons_tres::eval_one_tray(state, request))
      return std::vector<int>{*tray};
  return cons_tres::eval_offers(state, request, version);
}

}  // namespace

std::optional<Allocation> PerGpuPolicy::place(const ClusterState& state, const JobRequest& request) const {
  if (request.gpus < 1) throw std::invalid_argument("per-gpu: a request needs at least one GPU");
  if (request.shards > 0) return cons_tres::place_shards(state, request, version_);
  if (!may_fit(state, request)) return std::nullopt;
  const auto trays = choose_trays(state, request, version_);
  if (!trays) return std::nullopt;
  return cons_tres::pick_gpus(state, *trays, request, version_);
}

bool PerGpuPolicy::may_fit(const ClusterState& state, const JobRequest& request) const {
  // A GPU holding shards is not free, yet may serve a shard job: only the impossible size is ruled out.
  if (request.shards > 0) return cons_tres::shares_may_fit(state, request);
  return cons_tres::may_fit(state, request);
}

const PolicyType kPerGpuPolicy{
    .name = "per-gpu",
    .summary = "Slurm's default, select/cons_tres without a topology plugin",
    .params = {},
    .make = [](const PolicyConfig&, const PolicyContext& context) -> std::unique_ptr<PlacementPolicy> {
      return std::make_unique<PerGpuPolicy>(context.slurm_version);
    },
};

}  // namespace nvlsim
