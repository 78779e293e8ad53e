#include "platforms/platform_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "models/ib_fabric.hpp"
#include "models/nvlink_domain_graph.hpp"

namespace nvlsim {

PlatformSpec nvl72_platform(int racks) {
  PlatformSpec spec;
  spec.shape = ClusterShape{racks, 18, 4};
  return spec;
}

namespace {

// Full precision, so a file read back gives the same doubles.
std::string num(double v) {
  return fmt::format("{}", v);
}

void prop(std::string& out, const char* indent, const char* key, const std::string& value) {
  out += fmt::format("{}<prop id=\"nvlsim.{}\" value=\"{}\"/>\n", indent, key, value);
}

void link(std::string& out, const char* indent, const std::string& id, double bw, const std::string& lat) {
  out +=
      fmt::format("{}<link id=\"{}\" bandwidth=\"{}Bps\" latency=\"{}s\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                  indent, id, num(bw), lat);
}

// The gateway that a Floyd zone's children reach over their uplinks. SimGrid zones hold either zones or
// hosts and routers, so it is a zone of one router.
void hub(std::string& out, const char* indent, const std::string& zone, const std::string& router) {
  out += fmt::format("{}<zone id=\"{}\" routing=\"None\"><router id=\"{}\"/></zone>\n", indent, zone, router);
}

// Declares a child zone's uplink to its parent's hub; symmetrical, so the way down takes the DOWN side.
void uplink(std::string& out, const char* indent, const std::string& zone, const std::string& gateway,
            const std::string& hub_zone, const std::string& hub_router, const std::string& link_id) {
  out += fmt::format(
      "{}<zoneRoute src=\"{}\" dst=\"{}\" gw_src=\"{}\" gw_dst=\"{}\"><link_ctn id=\"{}\" "
      "direction=\"UP\"/></zoneRoute>\n",
      indent, zone, hub_zone, gateway, hub_router, link_id);
}

// The rail-optimized fat tree (models/ib_fabric.hpp). SimGrid 3.32 checks every new host and link name
// against every zone, and seals each zone by scanning every host, so loading costs about zones x hosts:
// one zone per leaf switch (the fewest that keep same-leaf traffic off the uplinks) and no zone per
// NVLink domain. Links get a zone of their own (FleXML takes no link before a zone in one parent),
// declared before the leaves, so their name checks and the routes' link look-ups stay short.
void write_infiniband(std::string& out, const ClusterShape& s, const FabricParams& f) {
  const IbFabric fabric(s, f);
  const std::string lat = num(f.ib_latency);
  out += fmt::format("    <!-- InfiniBand: {} rails, {} leaf switches of {} NICs, {} tiers -->\n",
                     fabric.rails(), fabric.leaves(), fabric.trays_per_leaf(), fabric.tiers());
  out += "    <zone id=\"ib-links\" routing=\"None\">\n";
  for (int leaf = 0; leaf < fabric.leaves(); ++leaf)
    for (int gpu : fabric.gpus_of_leaf(leaf))
      link(out, "      ", fmt::format("ib-leaf-{}_link_{}", leaf, gpu), f.nic_bw, lat);
  for (int leaf = 0; leaf < fabric.leaves(); ++leaf)
    link(out, "      ", fmt::format("ib-leaf-{}-up", leaf), fabric.leaf_uplink_bw(), lat);
  // Above the leaves the fabric is non-blocking: a pod's core links carry all its leaves' uplinks.
  for (int pod = 0; pod < fabric.pods() && fabric.pods() > 1; ++pod)
    link(out, "      ", fmt::format("ib-pod-{}-up", pod), fabric.pod_uplink_bw(pod), lat);
  out += "    </zone>\n";
  // Floyd zones compose each route from one route per NIC (to its leaf's router) and one per child zone
  // (up to its parent's hub), instead of a stored route per pair.
  out += "    <zone id=\"ib\" routing=\"Floyd\">\n";
  for (int pod = 0; pod < fabric.pods(); ++pod) {
    const std::vector<int> leaves = fabric.leaves_of_pod(pod);
    const std::string spine = fmt::format("ib-pod-{}-spine", pod);
    out += fmt::format("      <zone id=\"ib-pod-{}\" routing=\"Floyd\">\n", pod);
    hub(out, "        ", spine + "s", spine);
    for (int leaf : leaves) {
      const auto gpus = fabric.gpus_of_leaf(leaf);
      out += fmt::format("        <zone id=\"ib-leaf-{}\" routing=\"Floyd\">\n", leaf);
      for (int gpu : gpus) out += fmt::format("          <host id=\"nic-{}\" speed=\"1f\"/>\n", gpu);
      out += fmt::format("          <router id=\"ib-leaf-{}-router\"/>\n", leaf);
      for (int gpu : gpus)
        out += fmt::format(
            "          <route src=\"nic-{1}\" dst=\"ib-leaf-{0}-router\">"
            "<link_ctn id=\"ib-leaf-{0}_link_{1}\" direction=\"UP\"/></route>\n",
            leaf, gpu);
      out += "        </zone>\n";
    }
    for (int leaf : leaves)
      uplink(out, "        ", fmt::format("ib-leaf-{}", leaf), fmt::format("ib-leaf-{}-router", leaf),
             spine + "s", spine, fmt::format("ib-leaf-{}-up", leaf));
    out += "      </zone>\n";
  }
  if (fabric.pods() > 1) {
    hub(out, "      ", "ib-cores", "ib-core");
    for (int pod = 0; pod < fabric.pods(); ++pod)
      uplink(out, "      ", fmt::format("ib-pod-{}", pod), fmt::format("ib-pod-{}-spine", pod), "ib-cores",
             "ib-core", fmt::format("ib-pod-{}-up", pod));
  }
  out += "    </zone>\n";
}

}  // namespace

std::string platform_xml(const PlatformSpec& spec) {
  const auto& s = spec.shape;
  const auto& f = spec.fabric;
  std::string out;
  out += "<?xml version='1.0'?>\n";
  out += "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  out += "<platform version=\"4.1\">\n";
  out += fmt::format("  <!-- nvlsim platform: {} NVLink domains of {} trays x {} GPUs ({} GPUs).\n",
                     s.domains, s.trays_per_domain, s.gpus_per_tray, s.gpus());
  out += "       Written by `nvlsim platform`; the nvlsim.* properties are read by nvlsim. -->\n";
  // No routes between the zones below: NVLink transfers stay inside a domain, InfiniBand transfers
  // stay inside the fabric zone, so the root's route table is never consulted.
  out += "  <zone id=\"nvlsim\" routing=\"Full\">\n";
  const char* in = "    ";
  prop(out, in, "format_version", "1");
  prop(out, in, "domains", std::to_string(s.domains));
  prop(out, in, "trays_per_domain", std::to_string(s.trays_per_domain));
  prop(out, in, "gpus_per_tray", std::to_string(s.gpus_per_tray));
  prop(out, in, "nvlink_links_per_gpu", std::to_string(f.nvlink_links_per_gpu));
  prop(out, in, "nvlink_link_bw", num(f.nvlink_link_bw));
  prop(out, in, "nvlink_latency", num(f.nvlink_latency));
  prop(out, in, "nic_bw", num(f.nic_bw));
  prop(out, in, "ib_latency", num(f.ib_latency));
  prop(out, in, "ib_oversubscription", num(f.ib_oversubscription));
  prop(out, in, "nvlink_sharp", f.nvlink_sharp ? "1" : "0");
  prop(out, in, "ib_switch_radix", std::to_string(f.ib_switch_radix));
  if (!spec.node_names.empty()) prop(out, in, "node_names", spec.node_names);
  // A GPU's NVLink port carries what its healthy links to the switch chips carry (one link per chip).
  const NvlinkDomainGraph domain(s.gpus_per_domain(), f.nvlink_links_per_gpu, f.nvlink_link_bw);
  // One cluster for every domain's GPUs: a route between two GPUs is their two ports, and nvlsim never
  // routes NVLink traffic between domains, so a zone per domain would only slow loading down.
  out += fmt::format(
      "    <!-- NVLink: GPU g's port is nvl_link_g; {} GPUs per domain -->\n"
      "    <cluster id=\"nvl\" prefix=\"gpu-\" suffix=\"\" radical=\"0-{}\" speed=\"1f\" "
      "bw=\"{}Bps\" lat=\"{}s\" sharing_policy=\"SPLITDUPLEX\"/>\n",
      s.gpus_per_domain(), s.gpus() - 1, num(domain.gpu_bandwidth(0)), num(f.nvlink_latency));
  write_infiniband(out, s, f);
  out += "  </zone>\n</platform>\n";
  return out;
}

}  // namespace nvlsim
