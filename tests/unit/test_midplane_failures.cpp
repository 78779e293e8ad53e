// `llama3+midplane`: Rubin Ultra NVL576's whole-rack midplane faults on top of the llama3 baseline, and
// the seed's figure they reproduce (about 90 returns a month from a 1,000-rack factory at 8,000 h).

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "models/failure_model.hpp"
#include "nvlsim_process.hpp"

using namespace nvlsim;

TEST_CASE("llama3+midplane is llama3 plus whole-rack faults in the seed's ranges", "[failures]") {
  const auto base = builtin_failure_model("llama3");
  const auto midplane = builtin_failure_model("llama3+midplane");
  REQUIRE(base);
  REQUIRE(midplane);
  CHECK_FALSE(builtin_failure_model("llama4"));
  for (Component c : kComponents) {
    if (c == Component::rack) continue;
    INFO(to_string(c));
    CHECK((*midplane)[c].mtbf_hours == (*base)[c].mtbf_hours);
    CHECK((*midplane)[c].mttr_hours == (*base)[c].mttr_hours);
  }
  CHECK((*base)[Component::rack].mtbf_hours == 0);  // --failures llama3: no rack faults on any system
  const ComponentFailures& rack = (*midplane)[Component::rack];
  // Seed §10.1: system MTBF 5,000-10,000 h; a return takes 2-4 weeks.
  CHECK(rack.mtbf_hours >= 5000);
  CHECK(rack.mtbf_hours <= 10000);
  CHECK(rack.mttr_hours >= 2 * 168);
  CHECK(rack.mttr_hours <= 4 * 168);
  CHECK(rack.repair == RepairDistribution::fixed);

  // A model file may start from it and move the MTBF across the seed's range.
  const auto path = nvlsim::test::scratch_dir("midplane") / "m.json";
  std::ofstream(path) << R"({"base": "llama3+midplane", "components": {"rack": {"mtbf_hours": 5000}}})";
  const FailureModel low = read_failure_model(path);
  CHECK(low[Component::rack].mtbf_hours == 5000);
  CHECK(low[Component::rack].mttr_hours == rack.mttr_hours);
  CHECK(low[Component::gpu].mtbf_hours == (*base)[Component::gpu].mtbf_hours);
}

TEST_CASE("a 1,000-rack NVL576 factory at 8,000 h sees about 90 whole-rack returns a month", "[failures]") {
  const ClusterShape factory{
      .domains = 1000, .trays_per_domain = 72, .gpus_per_tray = 2, .zones_per_domain = 4};
  constexpr int kSwitches = 72;
  constexpr double kMonth = 730 * 3600.0;
  constexpr int kMonths = 12;
  const FailureModel model = *builtin_failure_model("llama3+midplane");
  const ComponentFailures& rack = model[Component::rack];
  // A returned rack cannot fail again until it is back: each rack fails once per MTBF + MTTR on average.
  const double expected = factory.racks() * kMonths * 730 / (rack.mtbf_hours + rack.mttr_hours);
  double all_months = 0;
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    FailureGenerator generator(model, factory, kSwitches, seed);
    int returns = 0;
    while (const auto e = generator.next()) {
      if (e->time >= kMonths * kMonth) break;
      if (e->component != Component::rack) continue;
      ++returns;
      CHECK(e->duration == rack.mttr_hours * 3600);
    }
    INFO("seed " << seed << ": " << returns << " returns in " << kMonths << " months, expected " << expected);
    // Four Poisson standard deviations; the count of a renewal process varies less than Poisson's.
    CHECK(std::abs(returns - expected) < 4 * std::sqrt(expected));
    all_months += returns;
  }
  // The seed's own arithmetic, 1000 x 730 h / 8,000 h = 91 a month, ignores the weeks a rack is away;
  // the model's count is within a tenth of it.
  const double per_month = all_months / (4 * kMonths);
  CHECK(per_month == Approx(1000 * 730 / 8000.0).epsilon(0.1));
}
