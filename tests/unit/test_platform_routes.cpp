// Routes of a written platform as SimGrid computes them after nvlsim loads it: the links, their
// bandwidths and the latency of every GPU pair in a domain and every NIC pair, against the fat tree of
// models/ib_fabric and the hand-computed figures of docs/model.md.

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <simgrid/s4u.hpp>

#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "child_process.hpp"
#include "models/ib_fabric.hpp"
#include "nvlsim_process.hpp"
#include "platforms/ib_plane_zone.hpp"
#include "platforms/platform_loader.hpp"
#include "platforms/platform_writer.hpp"
#include "sim/engine_setup.hpp"
#include "sim/policy_setup.hpp"
#include "sim/route_memo.hpp"

using namespace nvlsim;
using namespace nvlsim::test;

namespace {

namespace s4u = simgrid::s4u;

// Loads the platform in a child process (SimGrid allows one engine per process) and runs `body` on it;
// returns the lines it printed, keyed by their first word.
std::map<std::string, std::string> in_engine(
    const PlatformSpec& spec, const std::string& name,
    const std::function<void(const LoadedPlatform&, std::ostream&)>& body) {
  const auto file = scratch_dir("platform-routes-" + name) / "platform.xml";
  std::ofstream(file) << platform_xml(spec);
  std::istringstream in(checked_child_output([&](std::ostream& out) {
    auto engine = make_engine();
    body(load_platform(*engine, file), out);
  }));
  std::map<std::string, std::string> lines;
  for (std::string line; std::getline(in, line);) {
    const auto space = line.find(' ');
    lines[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  return lines;
}

// "link@bandwidth ... +latency", links in route order.
std::string route(s4u::Host* from, s4u::Host* to) {
  std::vector<s4u::Link*> links;
  double latency = 0;
  from->route_to(to, links, &latency);
  std::string out;
  for (const auto* l : links) out += fmt::format("{}@{} ", l->get_name(), l->get_bandwidth());
  return out + fmt::format("+{}", latency);
}

// What every route should be, from the fat tree model: NIC, then the leaf uplinks unless both NICs hang
// off one leaf, then the pods' core links unless both leaves share a pod — minus the links that can never
// saturate (a leaf's uplinks with at least its NICs' capacity, every pod's core links), which SimGrid's
// solver is not given; their latency still counts.
std::string expected_ib_route(const IbFabric& fabric, const FabricParams& f, int a, int b) {
  const int la = fabric.leaf_of_gpu(a);
  const int lb = fabric.leaf_of_gpu(b);
  const int pa = fabric.pod_of_leaf(la);
  const int pb = fabric.pod_of_leaf(lb);
  const auto solved = [&](int leaf) {
    return fabric.leaf_uplink_bw() < static_cast<double>(fabric.gpus_of_leaf(leaf).size()) * f.nic_bw;
  };
  std::string out = fmt::format("ib-leaf-{}_link_{}_UP@{} ", la, a, f.nic_bw);
  int links = 2;
  if (la != lb) {
    if (solved(la)) out += fmt::format("ib-leaf-{}-up_UP@{} ", la, fabric.leaf_uplink_bw());
    links += 2;
    if (pa != pb) links += 2;
    if (solved(lb)) out += fmt::format("ib-leaf-{}-up_DOWN@{} ", lb, fabric.leaf_uplink_bw());
  }
  double latency = 0;  // summed link by link, as SimGrid does
  for (int i = 0; i < links; ++i) latency += f.ib_latency;
  return out + fmt::format("ib-leaf-{}_link_{}_DOWN@{} +{}", lb, b, f.nic_bw, latency);
}

// Checks every ordered pair of GPUs in a domain and of NICs; prints the count of mismatches and the first.
void check_all_pairs(const LoadedPlatform& p, std::ostream& out) {
  const auto& s = p.spec.shape;
  const auto& f = p.spec.fabric;
  const IbFabric fabric(s, f);
  int gpu_bad = 0;
  int nic_bad = 0;
  for (int a = 0; a < s.gpus(); ++a)
    for (int b = 0; b < s.gpus(); ++b) {
      if (a == b) continue;
      if (s.domain_of_gpu(a) == s.domain_of_gpu(b)) {
        // Exactly the two ports, at the port bandwidth: failure handling lowers these two links.
        const double latency = 0.0 + f.nvlink_latency + f.nvlink_latency;  // summed as SimGrid does
        const std::string want = fmt::format("nvl_link_{}_UP@{} nvl_link_{}_DOWN@{} +{}", a,
                                             f.nvlink_gpu_bw(), b, f.nvlink_gpu_bw(), latency);
        const std::string got = route(p.gpu_hosts[a], p.gpu_hosts[b]);
        if (got != want && gpu_bad++ == 0) out << "gpu_first " << a << "->" << b << ": " << got << "\n";
      }
      const std::string got = route(p.nic_hosts[a], p.nic_hosts[b]);
      if (got != expected_ib_route(fabric, f, a, b) && nic_bad++ == 0)
        out << "nic_first " << a << "->" << b << ": " << got << " (want "
            << expected_ib_route(fabric, f, a, b) << ")\n";
    }
  out << "gpu_bad " << gpu_bad << "\nnic_bad " << nic_bad << "\n";
}

// Asks `memo` for the routes of some GPU and NIC pairs, three times over in the same order, and compares
// each answer with SimGrid's; prints how many were asked, wrong, of two links and of more.
void check_memo(const LoadedPlatform& p, RouteMemo& memo, std::ostream& out) {
  const int some[] = {0, 5, 71, 72, 150, 215};
  std::vector<std::pair<s4u::Host*, s4u::Host*>> pairs;
  // Pairs in a row from one host, then to one host: a slot that kept the pair before shares one end.
  for (const bool by_sender : {true, false})
    for (const auto* hosts : {&p.gpu_hosts, &p.nic_hosts})
      for (int a : some)
        for (int b : some)
          if (a != b) pairs.emplace_back((*hosts)[by_sender ? a : b], (*hosts)[by_sender ? b : a]);
  int asked = 0, wrong = 0, two = 0, more = 0;
  for (int round = 0; round < 3; ++round)
    for (const auto& [from, to] : pairs) {
      std::vector<s4u::Link*> links;
      double latency = 0;
      from->route_to(to, links, &latency);
      const RouteMemo::TwoLinks& got = memo.route(from, to);
      const bool is_two = links.size() == 2;
      const bool right = got.latency == latency && got.out == (is_two ? links[0] : nullptr) &&
                         got.in == (is_two ? links[1] : nullptr);
      ++asked;
      wrong += right ? 0 : 1;
      (is_two ? two : more) += 1;
    }
  out << "asked " << asked << "\nwrong " << wrong << "\ntwo " << two << "\nmore " << more << "\n";
}

// Asks the InfiniBand plane's zone about every ordered pair of NICs and compares with SimGrid's route;
// prints how many pairs it got wrong, how many are the two NIC links alone and how many are more, and
// whether a point that is no NIC of the zone is refused.
void check_nic_links_only(const LoadedPlatform& p, std::ostream& out) {
  if (p.ib_plane == nullptr) return;
  int wrong = 0, two = 0, more = 0;
  for (std::size_t a = 0; a < p.nic_hosts.size(); ++a)
    for (std::size_t b = 0; b < p.nic_hosts.size(); ++b) {
      if (a == b) continue;
      std::vector<s4u::Link*> links;
      double latency = 0;
      p.nic_hosts[a]->route_to(p.nic_hosts[b], links, &latency);
      double got = -1;
      const bool only =
          p.ib_plane->nic_links_only(p.nic_hosts[a]->get_netpoint(), p.nic_hosts[b]->get_netpoint(), got);
      if (only != (links.size() == 2) || got != latency) ++wrong;
      (only ? two : more) += 1;
    }
  out << "wrong " << wrong << "\ntwo " << two << "\nmore " << more << "\n";
  try {
    double latency = 0;
    p.ib_plane->nic_links_only(p.gpu_hosts[0]->get_netpoint(), p.nic_hosts[1]->get_netpoint(), latency);
  } catch (const std::logic_error&) {
    out << "refused_gpu 1\n";
  }
}

// Small switches make a three-tier fabric of three racks: leaves of 4 trays, 14 per rail, pods of 4
// leaves. Latencies and oversubscription show in every link and route: NIC routes of two links and of more.
PlatformSpec three_tiers() {
  PlatformSpec spec = nvl72_platform(3);
  spec.fabric.ib_switch_radix = 8;
  spec.fabric.ib_oversubscription = 2;
  spec.fabric.ib_latency = 1e-6;
  spec.fabric.nvlink_latency = 1e-7;
  return spec;
}

}  // namespace

TEST_CASE("the route memo answers as SimGrid does, also when pairs take each other's slot", "[platform]") {
  const PlatformSpec spec = three_tiers();
  for (const std::size_t slots : {std::size_t{1}, std::size_t{1} << 15}) {
    INFO("slots " << slots);  // one slot: every change of pair replaces the pair before
    const auto r =
        in_engine(spec, "memo-" + std::to_string(slots), [&](const LoadedPlatform& p, std::ostream& out) {
          RouteMemo memo(slots);
          check_memo(p, memo, out);
        });
    CHECK(r.at("asked") == "360");
    CHECK(r.at("wrong") == "0");
    CHECK(r.at("two") != "0");
    CHECK(r.at("more") != "0");
  }
  CHECK_THROWS_WITH(RouteMemo(3), "RouteMemo: the slots must be a power of two");
}

TEST_CASE("the InfiniBand plane's zone tells a route of two NIC links as SimGrid's route does",
          "[platform]") {
  // Leaves whose uplinks can saturate, so routes between leaves have more links; and the default fabric,
  // whose uplinks cannot, so every route is the two NIC links.
  const auto r = in_engine(three_tiers(), "nic-links-tiers", check_nic_links_only);
  CHECK(r.at("wrong") == "0");
  CHECK(r.at("two") != "0");
  CHECK(r.at("more") != "0");
  CHECK(r.count("refused_gpu") == 1);
  PlatformSpec flat = nvl72_platform(3);
  flat.fabric.ib_latency = 3e-7;
  const auto d = in_engine(flat, "nic-links-flat", check_nic_links_only);
  CHECK(d.at("wrong") == "0");
  CHECK(d.at("more") == "0");
  CHECK(d.at("two") == std::to_string(216 * 215));
}

TEST_CASE("GPU pairs in a domain cross exactly their two ports and NIC pairs follow the fat tree",
          "[platform]") {
  const PlatformSpec spec = three_tiers();
  REQUIRE(IbFabric(spec.shape, spec.fabric).pods() == 14);
  const auto r = in_engine(spec, "all-pairs", check_all_pairs);
  INFO((r.count("gpu_first") ? r.at("gpu_first") : ""));
  INFO((r.count("nic_first") ? r.at("nic_first") : ""));
  CHECK(r.at("gpu_bad") == "0");
  CHECK(r.at("nic_bad") == "0");
}

TEST_CASE("routes of the default three racks checked by hand", "[platform]") {
  const auto r = in_engine(nvl72_platform(3), "by-hand", [](const LoadedPlatform& p, std::ostream& out) {
    out << "gpu_0_5 " << route(p.gpu_hosts[0], p.gpu_hosts[5]) << "\n";
    out << "gpu_215_144 " << route(p.gpu_hosts[215], p.gpu_hosts[144]) << "\n";
    out << "nic_3_151 " << route(p.nic_hosts[3], p.nic_hosts[151]) << "\n";
    out << "nic_72_68 " << route(p.nic_hosts[72], p.nic_hosts[68]) << "\n";
    check_all_pairs(p, out);
  });
  // 18 NVLinks x 50 GB/s per port; no backbone: the NVSwitches are non-blocking.
  CHECK(r.at("gpu_0_5") == "nvl_link_0_UP@900000000000 nvl_link_5_DOWN@900000000000 +0");
  CHECK(r.at("gpu_215_144") == "nvl_link_215_UP@900000000000 nvl_link_144_DOWN@900000000000 +0");
  // Rail 3's two leaves (trays 0-31 and 32-53): NIC and NIC. Each leaf sends up 32 x 50 GB/s, all its
  // NICs can carry, so its uplinks never saturate and the solver is not given them.
  CHECK(r.at("nic_3_151") == "ib-leaf-6_link_3_UP@50000000000 ib-leaf-7_link_151_DOWN@50000000000 +0");
  // Trays 18 and 17 (two racks) share rail 0's first leaf: the uplinks are not crossed.
  CHECK(r.at("nic_72_68") == "ib-leaf-0_link_72_UP@50000000000 ib-leaf-0_link_68_DOWN@50000000000 +0");
  CHECK(r.at("gpu_bad") == "0");
  CHECK(r.at("nic_bad") == "0");
}

TEST_CASE("policies are built with the loaded fabric's leaf size, for nvlsim and nvlsim-bench alike",
          "[platform][replay]") {
  PlatformSpec spec = nvl72_platform(2);
  spec.fabric.ib_switch_radix = 16;  // 8 trays per leaf, not the default 32
  const auto lines = in_engine(spec, "leaf-size", [](const LoadedPlatform& p, std::ostream& out) {
    out << "trays_per_leaf " << policy_context({}, p, "test").trays_per_leaf << "\n";
  });
  CHECK(lines.at("trays_per_leaf") == "8");
}
