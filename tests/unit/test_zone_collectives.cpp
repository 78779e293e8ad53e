// Three-level collectives (zone, domain, InfiniBand) against closed forms computed here by hand from
// the figures of a Rubin Ultra NVL576 domain: 4 zones of 36 GPUs, 3.6 TB/s of NVLink per GPU, a zone's
// midplane link 36 x 1.8 TB/s, 1.6 Tb/s NICs.

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "models/collective.hpp"

using namespace nvlsim;

namespace {

FabricParams nvl576() {
  FabricParams f;
  f.nvlink_links_per_gpu = 72;
  f.nvlink_link_bw = 50e9;
  f.nic_bw = 200e9;
  f.inter_zone_bw = 1.8e12;
  f.gpus_per_zone = 36;
  return f;
}

constexpr double kB = 3.6e12;      // NVLink per GPU
constexpr double kZone = 64.8e12;  // a zone's midplane link
constexpr double kNic = 192e9;     // 0.96 of a NIC
constexpr double kS = 1e9;

double time_of(Collective c, const std::vector<GpuGroup>& groups) {
  const FabricParams f = nvl576();
  return uncontended_time(plan_collective(c, groups, kS, f).steps, f);
}

int flows_between_zones(const CollectivePlan& plan) {
  int n = 0;
  for (const auto& step : plan.steps)
    n += static_cast<int>(std::count_if(step.flows.begin(), step.flows.end(),
                                        [](const PlannedFlow& f) { return f.between_zones(); }));
  return n;
}

}  // namespace

TEST_CASE("a job inside one zone runs as on a domain without zones", "[collective][zones]") {
  const std::vector<GpuGroup> one_zone = {{36, 0}};
  CHECK(time_of(Collective::all_reduce, one_zone) == Approx(2 * 35.0 / 36 * kS / (0.94 * kB)).epsilon(1e-12));
  CHECK(time_of(Collective::all_to_all, one_zone) == Approx(35.0 / 36 * kS / (0.8 * kB)).epsilon(1e-12));
  CHECK(flows_between_zones(plan_collective(Collective::all_reduce, one_zone, kS, nvl576())) == 0);
}

TEST_CASE("all-reduce over zones: NVLS in each zone and a ring between zones share the GPU's port",
          "[collective][zones]") {
  // 36 + 36: each zone hands the other the message once (2 (z-1)/z = 1), a 1/36 share per GPU, at the
  // NVLink efficiency, over the port that also carries the zone's NVLS.
  const std::vector<GpuGroup> two = {{36, 0}, {36, 0}};
  const auto plan = plan_collective(Collective::all_reduce, two, kS, nvl576());
  CHECK(plan.algorithm == Algorithm::nvls);
  CHECK(flows_between_zones(plan) == 72);
  CHECK(time_of(Collective::all_reduce, two) ==
        Approx((2 * 35.0 / 36 / 0.94 + 1.0 / 36 / 0.8) * kS / kB).epsilon(1e-12));
  // 8 + 8: the ring's share per GPU is 1/8 of the message.
  CHECK(time_of(Collective::all_reduce, {{8, 0}, {8, 0}}) ==
        Approx((2 * 7.0 / 8 / 0.94 + 1.0 / 8 / 0.8) * kS / kB).epsilon(1e-12));
  // 36 + 36 + 8: each zone hands on 2 (3-1)/3 = 4/3 of the message, spread over the GPUs of both zones:
  // zone 2's 8 GPUs send it to zone 0's 36 as 36 flows of 1/36, five of them from its GPU 0. Zone 0's
  // GPU 0 (NVLS over 36, one 1/36 share) is more loaded than zone 2's (NVLS over 8, five shares).
  const double zone0 = (2 * 35.0 / 36 / 0.94 + (4.0 / 3) / 36 / 0.8) * kS / kB;
  const double zone2 = (2 * 7.0 / 8 / 0.94 + 5 * (4.0 / 3) / 36 / 0.8) * kS / kB;
  REQUIRE(zone0 > zone2);
  CHECK(time_of(Collective::all_reduce, {{36, 0}, {36, 0}, {8, 0}}) == Approx(zone0).epsilon(1e-12));
}

TEST_CASE("all-to-all over zones is limited by the port or by the zone's midplane link",
          "[collective][zones]") {
  // 8 + 8 of 16: 7/16 of the message stays in the zone, 8/16 crosses; the port carries both.
  CHECK(time_of(Collective::all_to_all, {{8, 0}, {8, 0}}) ==
        Approx((7.0 / 16 + 8.0 / 16) / 0.8 * kS / kB).epsilon(1e-12));
  // 36 + 36: 36 GPUs each send half the message across, more than the midplane link's 36 x 1.8 TB/s
  // carries in the time the ports need.
  const double port = (35.0 / 72 + 36.0 / 72) / 0.8 * kS / kB;
  const double zone = 36 * (36.0 / 72) / 0.8 * kS / kZone;
  REQUIRE(zone > port);
  CHECK(time_of(Collective::all_to_all, {{36, 0}, {36, 0}}) == Approx(zone).epsilon(1e-12));
}

TEST_CASE("three levels: zones, domains and InfiniBand run pipelined, the slowest decides",
          "[collective][zones]") {
  // Two domains of 36 + 36: the tree's NIC level, the message once over 8 NICs, is the slowest.
  const std::vector<GpuGroup> four = {{36, 0}, {36, 0}, {36, 1}, {36, 1}};
  const auto plan = plan_collective(Collective::all_reduce, four, kS, nvl576());
  CHECK(plan.algorithm == Algorithm::nvls_tree);
  CHECK(plan.steps.size() == 1);
  CHECK(flows_between_zones(plan) == 4 * 36);
  CHECK(time_of(Collective::all_reduce, four) == Approx(kS / (8 * kNic)).epsilon(1e-12));
  // With NICs fast enough the zone level decides.
  FabricParams fast = nvl576();
  fast.nic_bw = 1e15;
  CHECK(uncontended_time(plan_collective(Collective::all_reduce, four, kS, fast).steps, fast) ==
        Approx((2 * 35.0 / 36 / 0.94 + 1.0 / 36 / 0.8) * kS / kB).epsilon(1e-12));
  // all-to-all: half the message leaves the domain through each GPU's NIC.
  CHECK(time_of(Collective::all_to_all, four) == Approx(72.0 / 144 * kS / kNic).epsilon(1e-12));
}

TEST_CASE("bytes between zones count as NVLink payload, not as cross-domain bytes", "[collective][zones]") {
  const std::vector<GpuGroup> two = {{36, 0}, {36, 0}};
  const auto steps = plan_collective(Collective::all_to_all, two, kS, nvl576()).steps;
  // Every GPU sends 71/72 of its message to the others, all of it over NVLink.
  CHECK(total_bytes(steps) == Approx(72 * 71.0 / 72 * kS).epsilon(1e-12));
  CHECK(cross_domain_bytes(steps) == 0);
}

TEST_CASE("the reference placement fills zones as it fills domains", "[collective][zones]") {
  CHECK(reference_groups(72, 144, 36) == std::vector<GpuGroup>{{36, 0}, {36, 0}});
  CHECK(reference_groups(40, 144, 36) == std::vector<GpuGroup>{{20, 0}, {20, 0}});
  CHECK(reference_groups(200, 144, 36) ==
        std::vector<GpuGroup>{{34, 0}, {33, 0}, {33, 0}, {34, 1}, {33, 1}, {33, 1}});
  // Without zones a domain is one group.
  CHECK(reference_groups(100, 72, 72) == std::vector<GpuGroup>{{50, 0}, {50, 1}});
}
