#include "analysis/cost_model.hpp"

namespace nvlsim {

double gpu_hour_usd(const CostModel& model, int gpus_per_rack) {
  if (model.rental_gpu_hour_usd) return *model.rental_gpu_hour_usd;
  const double rack_hour_usd = model.rack_price_usd / (model.amortization_years * kHoursPerYear) +
                               model.rack_power_kw * model.power_usd_per_kwh;
  return rack_hour_usd / gpus_per_rack;
}

}  // namespace nvlsim
