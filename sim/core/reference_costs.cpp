#include "sim/core/reference_costs.hpp"

namespace nvlsim {

ReferenceCost ReferenceCosts::of(Collective collective, int gpus) {
  const std::uint64_t key = static_cast<std::uint64_t>(collective) << 32 | static_cast<std::uint32_t>(gpus);
  if (const auto it = known_.find(key); it != known_.end()) return it->second;
  const auto& shape = platform_.shape;
  const auto& fabric = platform_.fabric;
  const auto reference = reference_groups(gpus, shape.gpus_per_domain(), shape.gpus_per_zone());
  const auto time = [&](double message) {
    return uncontended_time(plan_collective(collective, reference, message, fabric).steps, fabric);
  };
  const double fixed = time(0.0);
  return known_[key] = ReferenceCost{fixed, time(1.0) - fixed};
}

}  // namespace nvlsim
