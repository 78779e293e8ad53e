// Bad platforms, topologies and policies in the bad-input catalogue (bad_input_catalogue.hpp).

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bad_input_catalogue.hpp"

using nvlsim::test::BadInput;

namespace {

// Platform XML as SimGrid wants it (without the DOCTYPE it stops at the first element), and its parts.
const std::string kPlatformHead =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n";
const std::string kLink = "<link id=\"l\" bandwidth=\"1Bps\" latency=\"0s\"/>";
const std::string kRoute = "<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>";

// A root zone carrying nvlsim's properties, "key=value" each, and any more elements.
std::string nvlsim_platform(const std::vector<std::string>& properties, const std::string& elements = "") {
  std::string zone = kPlatformHead + "<zone id=\"nvlsim\" routing=\"Full\">\n";
  for (const std::string& p : properties) {
    const auto eq = p.find('=');
    zone += "<prop id=\"nvlsim." + p.substr(0, eq) + "\" value=\"" + p.substr(eq + 1) + "\"/>\n";
  }
  return zone + elements + "</zone></platform>\n";
}

// One GB200 NVL72 domain's properties, and what they describe.
const std::vector<std::string> kOneDomain = {"format_version=2",
                                             "domains=1",
                                             "trays_per_domain=18",
                                             "gpus_per_tray=4",
                                             "nvlink_links_per_gpu=18",
                                             "nvlink_link_bw=5e10",
                                             "nvlink_latency=0",
                                             "nic_bw=5e10",
                                             "ib_latency=0",
                                             "ib_oversubscription=1",
                                             "nvlink_sharp=0",
                                             "ib_switch_radix=64"};

// A written 4-domain platform (tests/data) with `from` replaced by `to` once.
std::string written_platform_with(const std::string& from, const std::string& to) {
  std::ifstream in(std::string(NVLSIM_TEST_DATA) + "/nvl72x4-leaves-format1.xml");
  std::ostringstream text;
  text << in.rdbuf();
  std::string xml = text.str();
  const auto at = xml.find(from);
  REQUIRE(at != std::string::npos);
  return xml.replace(at, from.size(), to);
}

std::vector<std::string> with(std::vector<std::string> properties, const std::string& more) {
  properties.push_back(more);
  return properties;
}

}  // namespace

TEST_CASE(
    "bad platforms and topologies and policies end with their status and message and one run or nothing",
    "[errors][e2e]") {
  nvlsim::test::check_bad_inputs(
      "platforms",
      {
          // Platforms, topologies, policies.
          {"a platform that is not XML",
           {{"p.xml", "<platform"}},
           "--platform p.xml",
           2,
           {"p.xml", "Parse error"}},
          {"a platform file that does not exist",
           {},
           "--platform nope.xml",
           2,
           {"nope.xml: cannot open: No such file or directory"}},
          {"a platform that is a folder",
           {},
           "--platform .",
           2,
           {".: is a folder, expected a platform XML file"}},
          {"a platform that is a device",
           {},
           "--platform /dev/zero",
           2,
           {"/dev/zero: not a regular file, expected a platform XML file"}},
          {"a platform cut off inside a tag",
           {{"p.xml",
             kPlatformHead + "<zone id=\"z\" routing=\"Full\"><prop id=\"nvlsim.format_version\" val"}},
           "--platform p.xml",
           2,
           {"p.xml: Parse error at p.xml:4", "Bad attribute `val'"}},
          {"a platform property nvlsim does not read (misspelt)",
           {{"p.xml", nvlsim_platform(with(kOneDomain, "nic_eficiency=0.5"))}},
           "--platform p.xml",
           2,
           {"p.xml: property nvlsim.nic_eficiency: unknown, or not used by a platform of this format and "
            "shape"}},
          {"a platform with more hosts than its properties describe",
           {{"p.xml",
             written_platform_with("\"nvlsim.domains\" value=\"4\"", "\"nvlsim.domains\" value=\"2\"")}},
           "--platform p.xml",
           2,
           {"p.xml: host gpu-144 is beyond the 144 GPUs the properties describe"}},
          {"a probe of a GPU beyond the platform",
           {{"p.xml", written_platform_with("nvlsim.domains", "nvlsim.domains")}},
           "probe --platform p.xml --gpus 0-300",
           2,
           {"nvlsim: --gpus: GPU 288 is beyond the platform's 288 GPUs"}},
          {"a platform of a system nvlsim does not know",
           {{"p.xml", nvlsim_platform(with(kOneDomain, "system=gb100-nvl8"))}},
           "--platform p.xml",
           2,
           {"p.xml: property nvlsim.system: unknown system \"gb100-nvl8\" (known: gb200-nvl72, "}},
          {"a platform whose racks per domain do not divide its trays",
           {{"p.xml", nvlsim_platform(with(kOneDomain, "racks_per_domain=4"))}},
           "--platform p.xml",
           2,
           {"p.xml: property nvlsim.racks_per_domain: 4 does not divide the domain's 18 trays"}},
          {"a platform of zones without the bandwidth between them",
           {{"p.xml", nvlsim_platform(with(kOneDomain, "zones_per_domain=2"))}},
           "--platform p.xml",
           2,
           {"p.xml: property nvlsim.inter_zone_bw: missing: a domain of 2 zones needs the bandwidth between "
            "them"}},
          {"a platform with an element SimGrid does not know",
           {{"p.xml", kPlatformHead + "<zone id=\"z\" routing=\"Full\"><bogus/></zone></platform>\n"}},
           "--platform p.xml",
           2,
           {"p.xml: Parse error at p.xml:4"}},
          // SimGrid aborts on these three rather than throwing.
          {"a platform declaring a link twice",
           {{"p.xml",
             kPlatformHead + "<zone id=\"z\" routing=\"Full\">" + kLink + kLink + "</zone></platform>\n"}},
           "--platform p.xml",
           2,
           {"p.xml: SimGrid cannot load it: Link 'l' declared several times in the platform."}},
          {"a platform declaring a route twice",
           {{"p.xml", kPlatformHead + "<zone id=\"z\" routing=\"Full\"><host id=\"a\" speed=\"1f\"/>" +
                          "<host id=\"b\" speed=\"1f\"/>" + kLink + kRoute + kRoute +
                          "</zone></platform>\n"}},
           "--platform p.xml",
           2,
           {"p.xml: SimGrid cannot load it: The route between a and b already exists"}},
          {"a platform zone of an unknown routing",
           {{"p.xml", kPlatformHead + "<zone id=\"z\" routing=\"Foo\"></zone></platform>\n"}},
           "--platform p.xml",
           2,
           {"p.xml: SimGrid cannot load it: Not a valid model! (a <zone> has a routing attribute SimGrid "
            "does "
            "not "
            "know; it knows Full, Floyd"}},
          {"a platform without SimGrid's DOCTYPE",
           {{"p.xml", "<?xml version=\"1.0\"?>\n<platform version=\"4.1\"></platform>\n"}},
           "--platform p.xml",
           2,
           {"p.xml: Parse error at p.xml:2", "in prolog",
            "a platform file starts with <?xml version='1.0'?> and "
            "<!DOCTYPE platform"}},
          {"a platform file cut short",
           {{"p.xml", kPlatformHead + "<zone id=\"z\" routing=\"Full\">\n"}},
           "--platform p.xml",
           2,
           {"p.xml: Parse error at p.xml:5", "(the file ends inside an element: was it cut short?)"}},
          // SimGrid loads these and would abort in the middle of the simulation.
          {"a platform link of negative bandwidth",
           {{"p.xml", nvlsim_platform(kOneDomain, "<link id=\"x\" bandwidth=\"-5Bps\" latency=\"0s\"/>\n")}},
           "--platform p.xml",
           2,
           {"p.xml: link x: bandwidth must be positive and finite, got -5 B/s"}},
          {"a platform link of negative latency",
           {{"p.xml", nvlsim_platform(kOneDomain, "<link id=\"x\" bandwidth=\"5Bps\" latency=\"-1s\"/>\n")}},
           "--platform p.xml",
           2,
           {"p.xml: link x: latency must be at least 0 and finite, got -1 s"}},
          {"a platform host of negative speed",
           {{"p.xml", nvlsim_platform(kOneDomain, "<host id=\"h\" speed=\"-1f\"/>\n")}},
           "--platform p.xml",
           2,
           {"p.xml: host h: speed must be positive and finite, got -1 flop/s"}},
          {"an unknown policy", {}, "--policy nonsense", 2, {"unknown policy 'nonsense'"}},
          {"two segment rules of one threshold",
           {},
           "--policy 'sub-block:segment_rules=32>4/32>8'",
           2,
           {"policy spec 'sub-block:segment_rules=32>4/32>8': segment_rules: two rules for jobs of at least "
            "32 GPUs"}},
          {"an unknown policy parameter",
           {},
           "--policy sub-block:nosuch=1",
           2,
           {"nvlsim: --policy: policy spec 'sub-block:nosuch=1': ", "unknown parameter 'nosuch'"}},
          {"a policy file of the wrong shape",
           {{"p.json", "[1]"}},
           "--policy-file p.json",
           2,
           {"p.json: expected {\"policies\": [...]}"}},
          {"a hostlist of two billion nodes",
           {{"t.conf", "SwitchName=s0 Nodes=n[01-2147483647]\n"}},
           "--topology t.conf",
           2,
           {"t.conf:1: hostlist names more than 262144 nodes"}},
          {"a topology naming an unknown switch",
           {{"t.conf", "SwitchName=s0 Switches=s1\n"}},
           "--topology t.conf",
           2,
           {"t.conf:1: unknown switch 's1'"}},
          {"a topology naming more nodes than the platform has trays",
           {{"t.conf", "SwitchName=s0 Nodes=n[1-100]\nSwitchName=s1 Nodes=n[101-145]\n"}},
           "--topology t.conf --policy tree",
           2,
           {"t.conf:2: node 'n145' is distinct node number 145 in the file, more than the platform's 144 "
            "trays"}},
      });
}
