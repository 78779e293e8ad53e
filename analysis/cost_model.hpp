#pragma once
// What one GPU-hour costs: owning and powering a rack, or a rental price.

#include <optional>

#include "models/system_catalog.hpp"

namespace nvlsim {

// Defaults: gb200-nvl72's rack (models/system_catalog.hpp: ~US$3M, ~120 kW, DOMAIN.md §1); 4-year
// amortization and US$0.10/kWh are assumptions.
struct CostModel {
  double rack_price_usd = default_system().rack_price_usd.value;
  double amortization_years = 4;
  double rack_power_kw = default_system().rack_power_kw.value;
  double power_usd_per_kwh = 0.10;
  std::optional<double> rental_gpu_hour_usd;  // --gpu-hour-usd: replaces the owner model
};

// --rack-price-usd and --rack-power-kw when given.
struct RackCostFlags {
  std::optional<double> price_usd, power_kw;
};

// The owner model of `system`'s racks: its rack price and power unless the flags give them.
CostModel system_cost(CostModel model, const SystemFacts& system, const RackCostFlags& given);

inline constexpr double kHoursPerYear = 365 * 24;

// Owner model: (rack_price / (years x 8760 h) + power_kw x $/kWh) / GPUs per rack. With the defaults
// and 72 GPUs: (85.616 + 12) / 72 = US$1.3558 per GPU-hour.
double gpu_hour_usd(const CostModel& model, int gpus_per_rack);

}  // namespace nvlsim
