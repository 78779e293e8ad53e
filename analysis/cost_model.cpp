#include "analysis/cost_model.hpp"

namespace nvlsim {

CostModel system_cost(CostModel model, const SystemFacts& system, const RackCostFlags& given) {
  model.rack_price_usd = given.price_usd.value_or(system.rack_price_usd.value);
  model.rack_power_kw = given.power_kw.value_or(system.rack_power_kw.value);
  return model;
}

double gpu_hour_usd(const CostModel& model, int gpus_per_rack) {
  if (model.rental_gpu_hour_usd) return *model.rental_gpu_hour_usd;
  const double rack_hour_usd = model.rack_price_usd / (model.amortization_years * kHoursPerYear) +
                               model.rack_power_kw * model.power_usd_per_kwh;
  return rack_hour_usd / gpus_per_rack;
}

}  // namespace nvlsim
