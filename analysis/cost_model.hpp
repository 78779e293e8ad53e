#pragma once
// What one GPU-hour costs: owning and powering an NVL72 rack, or a rental price.

#include <optional>

namespace nvlsim {

// Defaults: DOMAIN.md §1 (rack ~US$3M, ~120 kW); 4-year amortization and US$0.10/kWh are assumptions.
struct CostModel {
  double rack_price_usd = 3e6;
  double amortization_years = 4;
  double rack_power_kw = 120;
  double power_usd_per_kwh = 0.10;
  std::optional<double> rental_gpu_hour_usd;  // --gpu-hour-usd: replaces the owner model
};

inline constexpr double kHoursPerYear = 365 * 24;

// Owner model: (rack_price / (years x 8760 h) + power_kw x $/kWh) / GPUs per rack. With the defaults
// and 72 GPUs: (85.616 + 12) / 72 = US$1.3558 per GPU-hour.
double gpu_hour_usd(const CostModel& model, int gpus_per_rack);

}  // namespace nvlsim
