// A transfer run as a timer (sim/flow_timers.hpp) ends when the same transfer as a SimGrid flow ends, and
// is cancelled with the same bytes left, also when its ports' bandwidth changes while it runs or before it
// starts: each pair below runs once as a flow and once as a timer, on GPUs of their own, in one engine.

#include <catch2/catch.hpp>
#include <simgrid/s4u.hpp>

#include <fstream>
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

constexpr double kBytes = 900e9;

s4u::Link* out_port(const LoadedPlatform& p, int gpu) {
  std::vector<s4u::Link*> route;
  p.gpu_hosts[gpu]->route_to(p.gpu_hosts[gpu + 1], route, nullptr);
  return route.front();
}

void set_port(FlowSet& flows, s4u::Link* link, double bandwidth) {
  link->set_bandwidth(bandwidth);
  flows.bandwidth_changed(link);
}

// Job j sends from GPU 2j to GPU 2j+1: as a SimGrid flow for even j, as a timer for odd j.
void launch(FlowSet& flows, const LoadedPlatform& p, std::size_t job) {
  s4u::Host* from = p.gpu_hosts[2 * job];
  s4u::Host* to = p.gpu_hosts[2 * job + 1];
  const Flow flow{job, Plane::nvlink, 2, kBytes};
  if (job % 2 == 0) {
    flows.launch(from, to, static_cast<std::uint64_t>(kBytes), flow);
    return;
  }
  std::vector<s4u::Link*> route;
  double latency = 0;
  from->route_to(to, route, &latency);
  REQUIRE(route.size() == 2);
  // Keys as the network numbers ports: the sender's out port, the receiver's in port.
  flows.launch_timer({{{route[0], 4 * (2 * job)}, {route[1], 4 * (2 * job + 1) + 1}}}, latency, flow);
}

// Runs until `t`, printing "end_<job> <time>" for each transfer that ends.
void run_until(FlowSet& flows, double t, std::ostream& out) {
  while (s4u::Engine::get_clock() < t && !flows.empty()) {
    flows.wait_until(t);
    for (const Flow& f : flows.take_finished())
      out << "end_" << f.job << " " << s4u::Engine::get_clock() << "\n";
  }
  if (s4u::Engine::get_clock() < t) s4u::this_actor::sleep_until(t);
}

std::map<std::string, double> run(const PlatformSpec& spec) {
  const auto file = scratch_dir("flow-timers") / "platform.xml";
  std::ofstream(file) << platform_xml(spec);
  return child_values([&](std::ostream& out) {
    out.precision(17);
    auto engine = make_engine();
    const LoadedPlatform p = load_platform(*engine, file);
    s4u::Actor::create("scenario", p.gpu_hosts[0], [&] {
      FlowSet flows;
      // Jobs 0, 1: degraded to half while sending, then restored.
      // Jobs 2, 3: start on a port already degraded, which then is restored.
      // Jobs 4, 5: cancelled while degraded.
      for (std::size_t j : {0, 1, 4, 5}) launch(flows, p, j);
      run_until(flows, 0.3, out);
      for (int gpu : {0, 2, 4, 6, 8, 10}) set_port(flows, out_port(p, gpu), 450e9);
      run_until(flows, 0.4, out);
      for (std::size_t j : {2, 3}) launch(flows, p, j);
      run_until(flows, 0.5, out);
      for (std::size_t j : {4, 5}) out << "share_" << j << " " << flows.cancel(j).sent_share << "\n";
      run_until(flows, 0.6, out);
      for (int gpu : {0, 2, 4, 6}) set_port(flows, out_port(p, gpu), 900e9);
      run_until(flows, 10, out);
    });
    engine->run();
  });
}

// Job 1's timer launched again while it runs, then once it has ended.
std::map<std::string, double> run_twice(const PlatformSpec& spec) {
  const auto file = scratch_dir("flow-timers-twice") / "platform.xml";
  std::ofstream(file) << platform_xml(spec);
  return child_values([&](std::ostream& out) {
    auto engine = make_engine();
    const LoadedPlatform p = load_platform(*engine, file);
    s4u::Actor::create("scenario", p.gpu_hosts[0], [&] {
      FlowSet flows;
      for (int attempt = 0; attempt < 2; ++attempt) {
        launch(flows, p, 1);
        try {
          launch(flows, p, 1);
        } catch (const std::logic_error&) {
          out << "refused_" << attempt << " 1\n";
        }
        run_until(flows, 10.0 * (attempt + 1), out);
      }
    });
    engine->run();
  });
}

// Timers whose links come with keys that are not one per link: each start is refused, and a start with the
// right keys then runs.
std::map<std::string, double> run_with_keys() {
  const auto file = scratch_dir("flow-timers-keys") / "platform.xml";
  std::ofstream(file) << platform_xml(nvl72_platform(1));
  return child_values([&](std::ostream& out) {
    auto engine = make_engine();
    const LoadedPlatform p = load_platform(*engine, file);
    s4u::Actor::create("scenario", p.gpu_hosts[0], [&] {
      FlowSet flows;
      const auto route = [&](int from) {
        std::vector<s4u::Link*> links;
        p.gpu_hosts[from]->route_to(p.gpu_hosts[from + 1], links, nullptr);
        REQUIRE(links.size() == 2);
        return links;
      };
      const auto a = route(0);
      const auto b = route(2);
      const auto attempt = [&](const std::string& name, const PortPair& ports) {
        try {
          flows.launch_timer(ports, 0, Flow{0, Plane::nvlink, 2, kBytes});
          out << name << " 1\n";
        } catch (const std::logic_error&) {
          out << name << " 0\n";
        }
      };
      attempt("first", {{{a[0], 0}, {a[1], 1}}});
      run_until(flows, 10, out);
      attempt("key_of_another_link", {{{b[0], 0}, {b[1], 3}}});
      attempt("link_under_another_key", {{{a[0], 2}, {a[1], 1}}});
      attempt("same_keys_again", {{{a[0], 0}, {a[1], 1}}});
      run_until(flows, 20, out);
    });
    engine->run();
  });
}

}  // namespace

TEST_CASE("each link a timer runs on keeps one key, and each key one link", "[flow_timers]") {
  const auto v = run_with_keys();
  CHECK(v.at("first") == 1);
  CHECK(v.at("key_of_another_link") == 0);
  CHECK(v.at("link_under_another_key") == 0);
  CHECK(v.at("same_keys_again") == 1);
  CHECK(v.at("end_0") > 10);
}

TEST_CASE("a link carries one timer at a time, and carries another once it has ended", "[flow_timers]") {
  const auto v = run_twice(nvl72_platform(1));
  CHECK(v.count("refused_0") == 1);
  CHECK(v.count("refused_1") == 1);
  CHECK(v.at("end_1") > 10);  // the second run's end, after the first's (the map keeps the last)
}

TEST_CASE("a timer ends and is cancelled as the SimGrid flow it replaces, across bandwidth changes",
          "[flow_timers]") {
  PlatformSpec spec = nvl72_platform(1);
  spec.fabric.nvlink_latency = 1e-3;
  const auto v = run(spec);
  const double l = 2e-3;  // two ports
  // 900 GB/s from l to 0.3 s, 450 GB/s to 0.6 s, then 900 GB/s again.
  const double left = kBytes - 900e9 * (0.3 - l) - 450e9 * 0.3;
  CHECK(v.at("end_0") == Approx(0.6 + left / 900e9).epsilon(1e-12));
  CHECK(v.at("end_1") == Approx(v.at("end_0")).epsilon(1e-15));
  // Started at 0.4 s on a port at 450 GB/s: SimGrid bounds the flow by the bandwidth it started with, so
  // the restored port does not speed it up.
  CHECK(v.at("end_2") == Approx(0.4 + l + kBytes / 450e9).epsilon(1e-12));
  CHECK(v.at("end_3") == Approx(v.at("end_2")).epsilon(1e-15));
  CHECK(v.at("share_4") == Approx((900e9 * (0.3 - l) + 450e9 * 0.2) / kBytes).epsilon(1e-12));
  CHECK(v.at("share_5") == Approx(v.at("share_4")).epsilon(1e-15));
}
