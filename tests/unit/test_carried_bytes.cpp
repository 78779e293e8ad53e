// The bytes each plane carried between samples, integrated from SimGrid's rates (sim/carried_bytes.hpp),
// against hand-computed max-min shares: transfers ending, a link's bandwidth changing, a latency ending
// and a cancel each move rates between two samples, which the counts must follow.

#include <catch2/catch.hpp>
#include <simgrid/s4u.hpp>

#include <fstream>
#include <functional>
#include <map>

#include "child_process.hpp"
#include "nvlsim_process.hpp"
#include "platforms/platform_loader.hpp"
#include "platforms/platform_writer.hpp"
#include "sim/engine_setup.hpp"
#include "sim/flow_set.hpp"

using namespace nvlsim;
using namespace nvlsim::test;

namespace {

namespace s4u = simgrid::s4u;

// Runs `scenario` as the one actor of an engine on the platform, in a child process (one engine per
// process); returns what it printed, "key value" lines.
std::map<std::string, double> run_scenario(
    const PlatformSpec& spec, const std::string& name,
    const std::function<void(const LoadedPlatform&, std::ostream&)>& scenario) {
  const auto file = scratch_dir("carried-bytes-" + name) / "platform.xml";
  std::ofstream(file) << platform_xml(spec);
  return child_values([&](std::ostream& out) {
    auto engine = make_engine();
    const LoadedPlatform p = load_platform(*engine, file);
    s4u::Actor::create("scenario", p.gpu_hosts[0], [&] { scenario(p, out); });
    engine->run();
  });
}

// Waits as the replay does, through the flow set, so that ends of latency are seen.
void wait_until(FlowSet& flows, double t) {
  while (s4u::Engine::get_clock() < t) {
    if (flows.empty())
      s4u::this_actor::sleep_until(t);
    else
      flows.wait_until(t);
    flows.take_finished();
  }
}

void sample(FlowSet& flows, const std::string& name, std::ostream& out) {
  const auto carried = flows.take_carried();
  out << name << "_nvlink " << carried[0] << "\n" << name << "_ib " << carried[1] << "\n";
}

Flow flow(std::size_t job, Plane plane, double bytes, int multiplicity = 1) {
  return {job, plane, multiplicity, bytes};
}

// NIC of tray `tray`, rail 0: trays 0-31 hang off rail 0's first leaf, trays 32-53 off its second.
s4u::Host* nic(const LoadedPlatform& p, int tray) {
  return p.nic_hosts[static_cast<std::size_t>(4 * tray)];
}

}  // namespace

TEST_CASE("carried bytes follow rates that ends and a bandwidth change move between samples",
          "[carried_bytes]") {
  // Leaf uplinks of 32 x 50 GB/s / 8 = 200 GB/s: eight transfers from one leaf to the other get 25 GB/s
  // each; once the four short ones end at 1 s, the other four get their NICs' 50 GB/s.
  PlatformSpec spec = nvl72_platform(3);
  spec.fabric.ib_oversubscription = 8;
  const auto v = run_scenario(spec, "shares", [](const LoadedPlatform& p, std::ostream& out) {
    FlowSet flows;
    for (int i = 0; i < 8; ++i)
      flows.launch(nic(p, i), nic(p, 32 + i), i < 4 ? 25'000'000'000 : 100'000'000'000,
                   flow(static_cast<std::size_t>(i), Plane::infiniband, i < 4 ? 25e9 : 100e9));
    // One NVLink transfer standing for two GPUs, alone on its ports at 900 GB/s until its source port
    // drops to 450 GB/s at 0.5 s: it ends at 1.5 s.
    flows.launch(p.gpu_hosts[0], p.gpu_hosts[1], 900'000'000'000, flow(8, Plane::nvlink, 900e9, 2));
    wait_until(flows, 0.5);
    sample(flows, "a", out);
    std::vector<s4u::Link*> route;
    p.gpu_hosts[0]->route_to(p.gpu_hosts[1], route, nullptr);
    route.front()->set_bandwidth(450e9);
    flows.bandwidth_changed(route.front());
    // Samples inside each rate, not only at the transfers' ends, where the exact total hides a wrong rate.
    wait_until(flows, 1);
    sample(flows, "b", out);
    wait_until(flows, 1.5);
    sample(flows, "c", out);
    wait_until(flows, 3);
    sample(flows, "d", out);
  });
  CHECK(v.at("a_nvlink") == Approx(2 * 900e9 * 0.5).epsilon(1e-12));
  CHECK(v.at("a_ib") == Approx(8 * 25e9 * 0.5).epsilon(1e-12));
  CHECK(v.at("b_nvlink") == Approx(2 * 450e9 * 0.5).epsilon(1e-12));
  CHECK(v.at("b_ib") == Approx(8 * 25e9 * 0.5).epsilon(1e-12));
  CHECK(v.at("c_nvlink") == Approx(2 * 450e9 * 0.5).epsilon(1e-12));
  CHECK(v.at("c_ib") == Approx(4 * 50e9 * 0.5).epsilon(1e-12));
  CHECK(v.at("d_nvlink") == 0);
  CHECK(v.at("d_ib") == Approx(4 * 50e9 * 1.0).epsilon(1e-12));
}

TEST_CASE("carried bytes see a transfer's latency end and a cancel between samples", "[carried_bytes]") {
  // Leaf uplinks of 32 x 50 GB/s / 32 = 50 GB/s, 0.1 s of latency per InfiniBand link. A starts at 0 and
  // sends from L (its route's latency) at 50 GB/s; B starts at 0.5 s, and from 0.5 s + L the two share the
  // uplink at 25 GB/s each; B is cancelled at 0.75 s + L, and A ends alone at 50 GB/s.
  PlatformSpec spec = nvl72_platform(3);
  spec.fabric.ib_oversubscription = 32;
  spec.fabric.ib_latency = 0.1;
  const auto v = run_scenario(spec, "latency", [](const LoadedPlatform& p, std::ostream& out) {
    std::vector<s4u::Link*> route;
    double latency = 0;
    nic(p, 0)->route_to(nic(p, 32), route, &latency);
    out << "latency " << latency << "\n";
    FlowSet flows;
    flows.launch(nic(p, 0), nic(p, 32), 50'000'000'000, flow(0, Plane::infiniband, 50e9));
    wait_until(flows, 0.5);
    sample(flows, "a", out);
    flows.launch(nic(p, 1), nic(p, 33), 50'000'000'000, flow(1, Plane::infiniband, 50e9));
    wait_until(flows, 0.75 + latency);
    sample(flows, "b", out);
    out << "cancelled_share " << flows.cancel(1).sent_share << "\n";
    wait_until(flows, 2 + latency);
    sample(flows, "c", out);
  });
  const double l = v.at("latency");
  REQUIRE(l == Approx(0.4));
  CHECK(v.at("a_ib") == Approx(50e9 * (0.5 - l)).epsilon(1e-9));
  CHECK(v.at("b_ib") == Approx(50e9 * l + 2 * 25e9 * 0.25).epsilon(1e-9));
  CHECK(v.at("cancelled_share") == Approx(25e9 * 0.25 / 50e9).epsilon(1e-9));
  CHECK(v.at("c_ib") == Approx(50e9 - 50e9 * 0.5 - 25e9 * 0.25).epsilon(1e-9));
}
