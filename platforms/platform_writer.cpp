#include "platforms/platform_writer.hpp"

#include <fmt/format.h>

#include <string>

#include "models/ib_fabric.hpp"
#include "models/nvlink_domain_graph.hpp"

namespace nvlsim {

namespace {

// Full precision, so a file read back gives the same doubles.
std::string num(double v) {
  return fmt::format("{}", v);
}

void prop(std::string& out, const char* indent, const char* key, const std::string& value) {
  out += fmt::format("{}<prop id=\"nvlsim.{}\" value=\"{}\"/>\n", indent, key, value);
}

}  // namespace

std::string platform_xml(const PlatformSpec& spec) {
  const auto& s = spec.shape;
  const auto& f = spec.fabric;
  std::string out;
  out += "<?xml version='1.0'?>\n";
  out += "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  out += "<platform version=\"4.1\">\n";
  out += fmt::format(
      "  <!-- nvlsim platform: {} racks of {}, {} NVLink domains of {} trays x {} GPUs ({} GPUs).\n",
      s.racks(), spec.system, s.domains, s.trays_per_domain, s.gpus_per_tray, s.gpus());
  out += "       Written by `nvlsim platform`; the nvlsim.* properties are read by nvlsim. -->\n";
  // No routes between the root's zones: NVLink transfers stay inside a domain, InfiniBand transfers
  // stay inside the fabric zone, so the root's route table is never consulted.
  out += "  <zone id=\"nvlsim\" routing=\"Full\">\n";
  const char* in = "    ";
  // Format 3 when the domains have zones: nvlsim builds the NVLink plane too (platforms/nvlink_plane.hpp).
  const bool zoned = s.zones_per_domain > 1;
  prop(out, in, "format_version", zoned ? "3" : "2");
  prop(out, in, "system", spec.system);
  prop(out, in, "domains", std::to_string(s.domains));
  prop(out, in, "trays_per_domain", std::to_string(s.trays_per_domain));
  prop(out, in, "gpus_per_tray", std::to_string(s.gpus_per_tray));
  prop(out, in, "racks_per_domain", std::to_string(s.racks_per_domain));
  prop(out, in, "zones_per_domain", std::to_string(s.zones_per_domain));
  if (s.zones_per_domain > 1) prop(out, in, "inter_zone_bw", num(f.inter_zone_bw));
  prop(out, in, "nvlink_links_per_gpu", std::to_string(f.nvlink_links_per_gpu));
  prop(out, in, "nvlink_link_bw", num(f.nvlink_link_bw));
  prop(out, in, "nvlink_latency", num(f.nvlink_latency));
  prop(out, in, "nic_bw", num(f.nic_bw));
  prop(out, in, "ib_latency", num(f.ib_latency));
  prop(out, in, "ib_oversubscription", num(f.ib_oversubscription));
  prop(out, in, "nvlink_sharp", f.nvlink_sharp ? "1" : "0");
  prop(out, in, "nvlink_efficiency", num(f.nvlink_efficiency));
  prop(out, in, "nvls_efficiency", num(f.nvls_efficiency));
  prop(out, in, "nic_efficiency", num(f.nic_efficiency));
  prop(out, in, "nccl_nics_per_domain", std::to_string(f.nccl_nics_per_domain));
  prop(out, in, "ib_switch_radix", std::to_string(f.ib_switch_radix));
  // Only when on: a file without it reads as off, and NVLink 5 systems' files stay as they were.
  if (spec.partial_operation) prop(out, in, "partial_operation", "1");
  if (!spec.node_names.empty()) prop(out, in, "node_names", spec.node_names);
  if (zoned) {
    out += fmt::format(
        "    <!-- NVLink: {} zones of {} GPUs per domain; nvlsim builds this plane from the properties when "
        "it\n         loads the file (zone nvl, hosts gpu-<id>, zone links nvl-zone-<domain>-<zone>) -->\n",
        s.zones_per_domain, s.gpus_per_zone());
  } else {
    // A GPU's NVLink port carries what its healthy links to the switch chips carry (one link per chip).
    const NvlinkDomainGraph domain(s.gpus_per_domain(), f.nvlink_links_per_gpu, f.nvlink_link_bw);
    // One cluster for every domain's GPUs: a route between two GPUs is their two ports, and nvlsim never
    // routes NVLink traffic between domains, so a zone per domain would only slow loading down.
    out += fmt::format(
        "    <!-- NVLink: GPU g's port is nvl_link_g; {} GPUs per domain -->\n"
        "    <cluster id=\"nvl\" prefix=\"gpu-\" suffix=\"\" radical=\"0-{}\" speed=\"1f\" "
        "bw=\"{}Bps\" lat=\"{}s\" sharing_policy=\"SPLITDUPLEX\"/>\n",
        s.gpus_per_domain(), s.gpus() - 1, num(domain.gpu_bandwidth(0)), num(f.nvlink_latency));
  }
  const IbFabric fabric(s, f);
  out += fmt::format(
      "    <!-- InfiniBand: {} rails, {} leaf switches of {} NICs, {} tiers; nvlsim builds this plane from "
      "the\n"
      "         properties when it loads the file (zone ib, hosts nic-<gpu>) -->\n",
      fabric.rails(), fabric.leaves(), fabric.trays_per_leaf(), fabric.tiers());
  out += "  </zone>\n</platform>\n";
  return out;
}

}  // namespace nvlsim
