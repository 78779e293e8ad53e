// The fabric as SimGrid sees it, through `nvlsim probe`: routes, and collectives run alone against the
// closed forms of the fabric issue (computed here by hand, independently of models/collective.cpp).

#include <catch2/catch.hpp>

#include <map>

#include "nvlsim_process.hpp"
#include "probe_output.hpp"

using namespace nvlsim::test;

namespace {

// What NCCL reaches per GPU (models/fabric_params.hpp): NVLS 0.94 and Ring 0.80 of 900 GB/s of NVLink,
// 0.96 of a 50 GB/s NIC; its all-reduce uses at most 8 NICs of a domain between domains.
constexpr double kNvls = 846e9;
constexpr double kRing = 720e9;
constexpr double kNic = 48e9;
constexpr double kS = 1e9;

std::string three_racks(const std::filesystem::path& dir) {
  const auto file = dir / "x3.xml";
  REQUIRE(run_nvlsim("platform --racks 3 -o " + file.string(), dir).status == 0);
  return file.string();
}

}  // namespace

TEST_CASE("a same-rack pair talks over NVLink ports, other pairs over NIC, fabric, NIC", "[fabric]") {
  const auto dir = scratch_dir("routes");
  const std::string platform = three_racks(dir);
  CHECK(probe("--platform " + platform + " --route 0 5", dir).at("route") ==
        "gpu-0 -> gpu-5 (nvlink): nvl_link_0_UP nvl_link_5_DOWN");
  // GPU 3 (tray 0, rail 3) and GPU 151 (tray 37, rail 3): leaves of 32 trays, so rail 3's first and
  // second leaves (6 and 7). Their uplinks carry all 32 NICs' bandwidth and never saturate, so the route
  // the solver sees is NIC, NIC.
  CHECK(probe("--platform " + platform + " --route 3 151", dir).at("route") ==
        "nic-3 -> nic-151 (infiniband): ib-leaf-6_link_3_UP ib-leaf-7_link_151_DOWN");
  // Same rail and leaf across racks (trays 17 and 18): one hop through the leaf.
  CHECK(probe("--platform " + platform + " --route 68 72", dir).at("route") ==
        "nic-68 -> nic-72 (infiniband): ib-leaf-0_link_68_UP ib-leaf-0_link_72_DOWN");
}

TEST_CASE("on 64 racks with oversubscribed leaves, traffic between pods is solved at the leaves only",
          "[fabric]") {
  const auto dir = scratch_dir("three-tiers");
  const auto platform = dir / "x64.xml";
  REQUIRE(run_nvlsim("platform --racks 64 --ib-oversubscription 2 -o " + platform.string(), dir).status == 0);
  // Pods are scalable units of whole trays: 8 groups of 32 trays (256 trays), every rail's leaf of each.
  // GPU 4600 = tray 1150, rail 0: rail 0's leaf 35, in pod 4. The pods' core links carry all their
  // leaves' uplinks and never saturate; the 2:1 leaf uplinks can.
  CHECK(probe("--platform " + platform.string() + " --route 0 4600", dir).at("route") ==
        "nic-0 -> nic-4600 (infiniband): ib-leaf-0_link_0_UP ib-leaf-0-up_UP ib-leaf-35-up_DOWN "
        "ib-leaf-35_link_4600_DOWN");
  // GPU 1021 = tray 255, rail 1: rail 1's leaf 36 + 7, still pod 0 with tray 0.
  CHECK(probe("--platform " + platform.string() + " --route 0 1021", dir).at("route") ==
        "nic-0 -> nic-1021 (infiniband): ib-leaf-0_link_0_UP ib-leaf-0-up_UP ib-leaf-43-up_DOWN "
        "ib-leaf-43_link_1021_DOWN");
}

TEST_CASE("two jobs sharing oversubscribed leaf uplinks slow each other by the max-min share", "[fabric]") {
  const auto dir = scratch_dir("contention");
  const auto platform = dir / "x2.xml";
  // 64:1 at the leaves: a leaf sends up 32 x 50 GB/s / 64 = 25 GB/s.
  REQUIRE(run_nvlsim("platform --racks 2 --ib-oversubscription 64 -o " + platform.string(), dir).status == 0);
  // Each job: tray 0 or 1 (rack 0, first leaves) with tray 32 or 33 (rack 1, second leaves), 4+4 GPUs.
  // Its tree between the domains sends S/4 per NIC each way between rail 0's two leaves, over their
  // uplinks, at NCCL's 96% (S/4 / 0.96 on the wire); the NVLink level runs beside it and is faster.
  const double wire = 0.25 * kS / 0.96;
  const double alone = wire / 25e9;     // the uplink, not the 50 GB/s NIC, is the limit
  const double shared = wire / 12.5e9;  // two flows split the uplink evenly
  // SimGrid sends whole bytes: the wire bytes are rounded, a few parts in 1e9.
  auto r = probe("--platform " + platform.string() + " --gpus \"0-3 128-131\"", dir);
  CHECK(std::stod(r.at("simulated_s")) == Approx(alone).epsilon(1e-8));
  r = probe("--platform " + platform.string() + " --gpus \"0-3 128-131\" --gpus \"4-7 132-135\"", dir);
  CHECK(std::stod(r.at("simulated_s.0")) == Approx(shared).epsilon(1e-8));
  CHECK(std::stod(r.at("simulated_s.1")) == Approx(shared).epsilon(1e-8));
  // A job on another rail's leaves does not interfere: GPUs 9 and 137 are NIC 1 of trays 2 and 34.
  r = probe("--platform " + platform.string() + " --gpus \"0-3 128-131\" --gpus \"9 137\"", dir);
  CHECK(std::stod(r.at("simulated_s.0")) == Approx(alone).epsilon(1e-8));
}

TEST_CASE("an isolated collective on SimGrid takes its closed-form time", "[fabric]") {
  const auto dir = scratch_dir("closed-form");
  const std::string platform = three_racks(dir);
  struct Case {
    const char* gpus;
    double all_reduce;
    double all_to_all;
  };
  const Case cases[] = {
      // One domain: NVLS.
      {"0-7", 2 * 7.0 / 8 * kS / kNvls, 7.0 / 8 * kS / kRing},
      // Two or three domains: NVLSTree, whose NIC level is the slower: min(n_i, 8) NICs carry the
      // message once each way between two domains, 1.5 times through the middle one of three.
      {"0-3 72-75", kS / (4 * kNic), 4.0 / 8 * kS / kNic},
      {"0-30 72", kS / (1 * kNic), 31.0 / 32 * kS / kNic},
      {"0-15 72-87", kS / (8 * kNic), 16.0 / 32 * kS / kNic},
      {"0-71 72-143", kS / (8 * kNic), 72.0 / 144 * kS / kNic},
      {"0-47 72-119 144-191", 1.5 * kS / (8 * kNic), 96.0 / 144 * kS / kNic},
  };
  for (const Case& c : cases) {
    INFO(c.gpus);
    auto r = probe("--platform " + platform + " --gpus \"" + c.gpus + "\" --collective all-reduce", dir);
    CHECK(std::stod(r.at("simulated_s")) == Approx(c.all_reduce).epsilon(0.01));
    r = probe("--platform " + platform + " --gpus \"" + c.gpus + "\" --collective all-to-all", dir);
    CHECK(std::stod(r.at("simulated_s")) == Approx(c.all_to_all).epsilon(0.01));
  }
}

TEST_CASE("bw_efficiency figures of the fabric issue", "[fabric]") {
  const auto dir = scratch_dir("efficiency");
  const std::string platform = three_racks(dir);
  const auto efficiency = [&](const char* gpus) {
    const auto r = probe("--platform " + platform + " --gpus \"" + gpus + "\"", dir);
    return std::stod(r.at("nvlink_ideal_s")) / std::stod(r.at("simulated_s"));
  };
  CHECK(efficiency("0-7") == Approx(1.0));
  CHECK(efficiency("0-3 72-75") == Approx(0.397).epsilon(0.01));
  CHECK(efficiency("0-30 72") == Approx(0.110).epsilon(0.01));
  CHECK(efficiency("0-71 72-143") == Approx(0.90).epsilon(0.01));
}
