// The table of systems: each figure sourced, the figures consistent with each other and with the
// aggregates the documents give, and platforms built from it shaped as the table says.

#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>
#include <string>

#include "analysis/cost_model.hpp"
#include "models/input_error.hpp"
#include "models/system_catalog.hpp"
#include "platforms/platform_spec.hpp"

using nvlsim::SystemFacts;

namespace {

template <class T>
void check_source(const nvlsim::Sourced<T>& fact) {
  const std::string source(fact.source);
  INFO(source);
  CHECK(!source.empty());
  // An assumption says why it was made, a sourced figure names where it comes from.
  if (source.starts_with("assumed")) {
    CHECK(source.starts_with("assumed: "));
    CHECK(source.size() > 30);
  } else {
    CHECK((source.find("DOMAIN.md §") != std::string::npos || source.find("issue 18") != std::string::npos ||
           source.find("seed ") != std::string::npos || source.starts_with("does not apply")));
  }
}

}  // namespace

TEST_CASE("every system's figures have a source and its names are unique", "[systems]") {
  std::set<std::string> names;
  for (const SystemFacts& s : nvlsim::systems()) {
    INFO(s.name);
    CHECK(names.insert(std::string(s.name)).second);
    check_source(s.gpus_per_tray);
    check_source(s.trays_per_domain);
    check_source(s.racks_per_domain);
    check_source(s.zones_per_domain);
    check_source(s.nvlink_links_per_gpu);
    check_source(s.nvlink_link_bw);
    check_source(s.inter_zone_bw);
    check_source(s.nic_bw);
    check_source(s.rack_power_kw);
    check_source(s.rack_price_usd);
  }
  for (const char* required : {"gb200-nvl72", "gb300-nvl72", "gb200-nvl36x2", "vr-nvl144", "vr-ultra-nvl576"})
    CHECK(names.contains(required));
  CHECK(nvlsim::default_system().name == "gb200-nvl72");
}

TEST_CASE("every system's figures agree with each other", "[systems]") {
  for (const SystemFacts& s : nvlsim::systems()) {
    INFO(s.name);
    // Racks and zones hold whole trays.
    CHECK(s.trays_per_domain.value % s.racks_per_domain.value == 0);
    CHECK(s.trays_per_domain.value % s.zones_per_domain.value == 0);
    CHECK(s.gpus_per_rack() * s.racks_per_domain.value == s.gpus_per_domain());
    // Inter-zone bandwidth exists exactly where there are zones, and no GPU sends more out of its zone
    // than it has NVLink.
    CHECK((s.inter_zone_bw.value > 0) == (s.zones_per_domain.value > 1));
    CHECK(s.inter_zone_bw.value <= s.nvlink_gpu_bw());
    // A GPU has more NVLink than NIC, the cliff the placement policies exist for.
    CHECK(s.nvlink_gpu_bw() > s.nic_bw.value);
    CHECK(s.rack_power_kw.value > 0);
    CHECK(s.rack_price_usd.value > 0);
  }
}

TEST_CASE("the systems' figures reproduce the documents' own figures", "[systems]") {
  const auto& gb200 = nvlsim::system_named("gb200-nvl72");
  const auto& gb300 = nvlsim::system_named("gb300-nvl72");
  const auto& nvl36x2 = nvlsim::system_named("gb200-nvl36x2");
  const auto& vr = nvlsim::system_named("vr-nvl144");
  const auto& kyber = nvlsim::system_named("vr-ultra-nvl576");
  constexpr double kGbit = 1e9 / 8;  // bytes/s in a Gb/s
  // DOMAIN.md §1: 72 GPUs, 1.8 TB/s both ways each, ~130 TB/s all-to-all, ConnectX-7 400 Gb/s.
  CHECK(gb200.gpus_per_domain() == 72);
  CHECK(2 * gb200.nvlink_gpu_bw() == 1.8e12);
  CHECK(2 * gb200.nvlink_gpu_bw() * gb200.gpus_per_domain() == Approx(130e12).epsilon(0.01));
  CHECK(gb200.nic_bw.value == 400 * kGbit);
  // GB300: the same domain, ConnectX-8 800 Gb/s.
  CHECK(gb300.gpus_per_domain() == 72);
  CHECK(gb300.nvlink_gpu_bw() == gb200.nvlink_gpu_bw());
  CHECK(gb300.nic_bw.value == 800 * kGbit);
  // NVL36x2: one 72-GPU domain over two racks of 9 compute trays.
  CHECK(nvl36x2.gpus_per_domain() == 72);
  CHECK(nvl36x2.trays_per_domain.value / nvl36x2.racks_per_domain.value == 9);
  // Vera Rubin: 3.6 TB/s per GPU, 260 TB/s NVLink and 28.8 TB/s scale-out per domain (both ways),
  // ConnectX-9 1.6 Tb/s.
  CHECK(2 * vr.nvlink_gpu_bw() == 3.6e12);
  CHECK(2 * vr.nvlink_gpu_bw() * vr.gpus_per_domain() == Approx(260e12).epsilon(0.01));
  CHECK(2 * vr.nic_bw.value * vr.gpus_per_domain() == Approx(28.8e12));
  CHECK(vr.nic_bw.value == 1600 * kGbit);
  // Rubin Ultra NVL576: 576 dies in packages of 4, 4 zones of 18 compute trays, one rack.
  CHECK(kyber.gpus_per_domain() * 4 == 576);
  CHECK(kyber.zones_per_domain.value == 4);
  CHECK(kyber.trays_per_domain.value / kyber.zones_per_domain.value == 18);
  CHECK(kyber.racks_per_domain.value == 1);
  // Rack power: ~120, ~200 and 400+ kW.
  CHECK(gb200.rack_power_kw.value == Approx(120).epsilon(0.1));
  CHECK(vr.rack_power_kw.value == Approx(200).epsilon(0.1));
  CHECK(kyber.rack_power_kw.value >= 400);
}

TEST_CASE("a system's platform has its shape and figures", "[systems][platform]") {
  for (const SystemFacts& s : nvlsim::systems()) {
    INFO(s.name);
    const int racks = 3 * s.racks_per_domain.value;
    const nvlsim::PlatformSpec spec = nvlsim::system_platform(s, racks);
    CHECK(spec.system == s.name);
    CHECK(spec.shape.racks() == racks);
    CHECK(spec.shape.domains == 3);
    CHECK(spec.shape.gpus() == 3 * s.gpus_per_domain());
    CHECK(spec.shape.gpus_per_rack() == s.gpus_per_rack());
    CHECK(spec.shape.zones_per_domain == s.zones_per_domain.value);
    CHECK(spec.fabric.nvlink_gpu_bw() == s.nvlink_gpu_bw());
    CHECK(spec.fabric.nic_bw == s.nic_bw.value);
    CHECK(spec.fabric.inter_zone_bw == s.inter_zone_bw.value);
  }
  CHECK_THROWS_AS(nvlsim::system_platform(nvlsim::system_named("gb200-nvl36x2"), 3), std::invalid_argument);
  CHECK(nvlsim::nvl72_platform(2).system == "gb200-nvl72");
}

TEST_CASE("an unknown system is an error naming every known one", "[systems][errors]") {
  try {
    nvlsim::system_named("gb100-nvl8");
    FAIL("no error");
  } catch (const nvlsim::InputError& e) {
    const std::string what = e.what();
    CHECK(what.starts_with("unknown system \"gb100-nvl8\" (known: "));
    for (const SystemFacts& s : nvlsim::systems()) CHECK(what.find(s.name) != std::string::npos);
  }
}

TEST_CASE("the owner cost model takes a system's rack price and power unless given", "[systems][cost]") {
  const auto& kyber = nvlsim::system_named("vr-ultra-nvl576");
  const nvlsim::CostModel base;
  const nvlsim::CostModel cost = nvlsim::system_cost(base, kyber, {});
  CHECK(cost.rack_price_usd == kyber.rack_price_usd.value);
  CHECK(cost.rack_power_kw == kyber.rack_power_kw.value);
  CHECK(cost.amortization_years == base.amortization_years);
  const nvlsim::CostModel given = nvlsim::system_cost(base, kyber, {1e6, 10.0});
  CHECK(given.rack_price_usd == 1e6);
  CHECK(given.rack_power_kw == 10);
  // The default model is gb200-nvl72's.
  const auto& gb200 = nvlsim::default_system();
  CHECK(base.rack_price_usd == gb200.rack_price_usd.value);
  CHECK(base.rack_power_kw == gb200.rack_power_kw.value);
}
