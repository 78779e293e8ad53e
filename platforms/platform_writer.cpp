#include "platforms/platform_writer.hpp"

#include <fmt/format.h>

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

// The rail-optimized fat tree (models/ib_fabric.hpp): one zone per pod, one cluster per leaf switch whose
// private links are the NICs. Routes climb from a leaf's router over the leaf's uplinks to the pod's
// spine layer and, between pods, over the pods' core links. Full routing stores a route per pair of
// leaves in a pod and per pair of pods, never per pair of NICs.
void write_infiniband(std::string& out, const ClusterShape& s, const FabricParams& f) {
  const IbFabric fabric(s, f);
  const std::string lat = num(f.ib_latency);
  out += fmt::format("    <!-- InfiniBand: {} rails, {} leaf switches of {} NICs, {} tiers -->\n",
                     fabric.rails(), fabric.leaves(), fabric.trays_per_leaf(), fabric.tiers());
  out += "    <zone id=\"ib\" routing=\"Full\">\n";
  for (int pod = 0; pod < fabric.pods(); ++pod) {
    const int first = pod * fabric.leaves_per_pod();
    const int end = std::min(first + fabric.leaves_per_pod(), fabric.leaves());
    out += fmt::format("      <zone id=\"ib-pod-{0}\" routing=\"Full\">\n", pod);
    // SimGrid zones hold either zones or routers, so the spine layer is a zone of one router.
    out += fmt::format(
        "        <zone id=\"ib-pod-{0}-spines\" routing=\"None\"><router id=\"ib-pod-{0}-spine\"/></zone>\n",
        pod);
    for (int leaf = first; leaf < end; ++leaf) {
      std::string radical;
      for (int gpu : fabric.gpus_of_leaf(leaf))
        radical += fmt::format("{}{}", radical.empty() ? "" : ",", gpu);
      out += fmt::format(
          "        <cluster id=\"ib-leaf-{0}\" prefix=\"nic-\" suffix=\"\" radical=\"{1}\" speed=\"1f\" "
          "bw=\"{2}Bps\" "
          "lat=\"{3}s\" router_id=\"ib-leaf-{0}-router\" sharing_policy=\"SPLITDUPLEX\"/>\n",
          leaf, radical, num(f.nic_bw), lat);
    }
    // FleXML takes no zone after a link, so links follow the zones.
    for (int leaf = first; leaf < end; ++leaf)
      out += fmt::format(
          "        <link id=\"ib-leaf-{}-up\" bandwidth=\"{}Bps\" latency=\"{}s\" "
          "sharing_policy=\"SPLITDUPLEX\"/>\n",
          leaf, num(fabric.leaf_uplink_bw()), lat);
    for (int a = first; a < end; ++a) {
      out += fmt::format(
          "        <zoneRoute src=\"ib-leaf-{0}\" dst=\"ib-pod-{1}-spines\" gw_src=\"ib-leaf-{0}-router\" "
          "gw_dst=\"ib-pod-{1}-spine\"><link_ctn id=\"ib-leaf-{0}-up\" direction=\"UP\"/></zoneRoute>\n",
          a, pod);
      for (int b = a + 1; b < end; ++b)
        out += fmt::format(
            "        <zoneRoute src=\"ib-leaf-{0}\" dst=\"ib-leaf-{1}\" gw_src=\"ib-leaf-{0}-router\" "
            "gw_dst=\"ib-leaf-{1}-router\"><link_ctn id=\"ib-leaf-{0}-up\" direction=\"UP\"/>"
            "<link_ctn id=\"ib-leaf-{1}-up\" direction=\"DOWN\"/></zoneRoute>\n",
            a, b);
    }
    out += "      </zone>\n";
  }
  // Above the leaves the fabric is non-blocking: a pod's core links carry all its leaves' uplinks.
  for (int pod = 0; pod < fabric.pods() && fabric.pods() > 1; ++pod)
    out += fmt::format(
        "      <link id=\"ib-pod-{}-up\" bandwidth=\"{}Bps\" latency=\"{}s\" "
        "sharing_policy=\"SPLITDUPLEX\"/>\n",
        pod, num(fabric.pod_uplink_bw(pod)), lat);
  for (int p = 0; p < fabric.pods(); ++p)
    for (int q = p + 1; q < fabric.pods(); ++q)
      out += fmt::format(
          "      <zoneRoute src=\"ib-pod-{0}\" dst=\"ib-pod-{1}\" gw_src=\"ib-pod-{0}-spine\" "
          "gw_dst=\"ib-pod-{1}-spine\">"
          "<link_ctn id=\"ib-pod-{0}-up\" direction=\"UP\"/><link_ctn id=\"ib-pod-{1}-up\" "
          "direction=\"DOWN\"/>"
          "</zoneRoute>\n",
          p, q);
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
  const int per_domain = s.gpus_per_domain();
  // A GPU's NVLink port carries what its healthy links to the switch chips carry (one link per chip).
  const NvlinkDomainGraph domain(per_domain, f.nvlink_links_per_gpu, f.nvlink_link_bw);
  for (int d = 0; d < s.domains; ++d) {
    out += fmt::format(
        "    <cluster id=\"nvl-{}\" prefix=\"gpu-\" suffix=\"\" radical=\"{}-{}\" speed=\"1f\" bw=\"{}Bps\" "
        "lat=\"{}s\" sharing_policy=\"SPLITDUPLEX\"/>\n",
        d, d * per_domain, (d + 1) * per_domain - 1, num(domain.gpu_bandwidth(0)), num(f.nvlink_latency));
  }
  write_infiniband(out, s, f);
  out += "  </zone>\n</platform>\n";
  return out;
}

}  // namespace nvlsim
