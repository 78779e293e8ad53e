// A platform's nvlsim.* properties: finite numbers in documented ranges, counts that fit in int.

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "models/input_error.hpp"
#include "platforms/platform_properties.hpp"

using nvlsim::InputError;
// Values are assigned as std::string ("..."s, a move): g++ 12 at -O3 warns falsely (-Wrestrict) on a
// map value assigned from a literal.
using namespace std::string_literals;

namespace {

std::map<std::string, std::string> nvl72x2() {
  return {{"format_version", "1"},        {"domains", "2"},
          {"trays_per_domain", "18"},     {"gpus_per_tray", "4"},
          {"nvlink_links_per_gpu", "18"}, {"nvlink_link_bw", "50000000000"},
          {"nvlink_latency", "0"},        {"nic_bw", "50000000000"},
          {"ib_latency", "1e-6"},         {"ib_oversubscription", "1"},
          {"nvlink_sharp", "0"},          {"ib_switch_radix", "64"}};
}

nvlsim::PlatformSpec read(const std::map<std::string, std::string>& properties) {
  return nvlsim::read_platform_properties(
      [&](const std::string& key) -> const char* {
        const auto found = properties.find(key.substr(std::string("nvlsim.").size()));
        return found == properties.end() ? nullptr : found->second.c_str();
      },
      "p.xml");
}

std::string error_with(const std::string& key, const std::string& value) {
  auto properties = nvl72x2();
  properties[key] = value;
  try {
    read(properties);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("the properties nvlsim platform writes are read back", "[platform]") {
  const nvlsim::PlatformSpec spec = read(nvl72x2());
  CHECK(spec.shape.gpus() == 144);
  CHECK(spec.fabric.nvlink_link_bw == 50e9);
  CHECK(spec.fabric.ib_latency == 1e-6);
  CHECK(spec.node_names.empty());
}

TEST_CASE("NaN and infinite platform numbers are errors naming file and property", "[platform][errors]") {
  for (const char* value : {"nan", "inf", "-inf"}) {
    INFO(value);
    CHECK(error_with("nic_bw", value) ==
          std::string("p.xml: property nvlsim.nic_bw: expected a finite number, got \"") + value + "\"");
    CHECK(error_with("nvlink_latency", value).starts_with("p.xml: property nvlsim.nvlink_latency: "));
  }
  // Beyond a double: a number, outside the range.
  CHECK(error_with("nic_bw", "1e999") ==
        "p.xml: property nvlsim.nic_bw: must be in [1, 1000000000000000], got 1e999");
}

TEST_CASE("platform numbers outside their ranges are errors", "[platform][errors]") {
  CHECK(error_with("nvlink_link_bw", "0.5") ==
        "p.xml: property nvlsim.nvlink_link_bw: must be in [1, 1000000000000000], got 0.5");
  CHECK(error_with("ib_latency", "2") == "p.xml: property nvlsim.ib_latency: must be in [0, 1], got 2");
  CHECK(error_with("ib_oversubscription", "0.5").starts_with("p.xml: property nvlsim.ib_oversubscription"));
  CHECK(error_with("nvlink_sharp", "2").starts_with("p.xml: property nvlsim.nvlink_sharp"));
  CHECK(error_with("format_version", "4").starts_with("p.xml: property nvlsim.format_version"));
  CHECK(error_with("domains", "2147483648") ==
        "p.xml: property nvlsim.domains: must be in [1, 1048576], got 2147483648");
}

TEST_CASE("sizes whose product overflows are errors, not wrapped counts", "[platform][errors]") {
  auto properties = nvl72x2();
  properties["domains"] = "100000"s;
  properties["trays_per_domain"] = "1024"s;
  properties["gpus_per_tray"] = "64"s;
  CHECK_THROWS_WITH(read(properties),
                    "p.xml: property nvlsim.domains: 100000 domains of 1024 trays of 64 GPUs "
                    "make 102400000 trays and 6553600000 GPUs, more than 262144 trays or "
                    "1048576 GPUs");
  auto fits = nvl72x2();
  fits["domains"] = "14563"s;
  CHECK(read(fits).shape.gpus() == 14563 * 72);
}

TEST_CASE("a file without a system is GB200 NVL72, and a system fills in what its file leaves out",
          "[platform][systems]") {
  const nvlsim::PlatformSpec old = read(nvl72x2());
  CHECK(old.system == "gb200-nvl72");
  CHECK(old.shape.racks() == 2);
  CHECK(old.shape.zones_per_domain == 1);
  auto properties = nvl72x2();
  properties["system"] = "gb200-nvl36x2"s;
  CHECK(read(properties).shape.racks() == 4);  // two racks per domain
  properties["racks_per_domain"] = "3"s;
  CHECK(read(properties).shape.racks() == 6);  // the file's own figure wins
  properties = nvl72x2();
  properties["system"] = "vr-ultra-nvl576"s;
  properties["trays_per_domain"] = "72"s;
  properties["format_version"] = "3"s;  // zones need the NVLink plane nvlsim builds
  const nvlsim::PlatformSpec kyber = read(properties);
  CHECK(kyber.shape.zones_per_domain == 4);
  CHECK(kyber.fabric.gpus_per_zone == 72);  // 18 trays of this file's 4 GPUs
  CHECK(kyber.fabric.inter_zone_bw == nvlsim::system_named("vr-ultra-nvl576").inter_zone_bw.value);
  properties["inter_zone_bw"] = "1e12"s;
  CHECK(read(properties).fabric.inter_zone_bw == 1e12);
}

TEST_CASE("a platform's system, racks and zones are checked", "[platform][systems][errors]") {
  CHECK(error_with("system", "gb100").starts_with("p.xml: property nvlsim.system: unknown system \"gb100\""));
  CHECK(error_with("zones_per_domain", "5") ==
        "p.xml: property nvlsim.zones_per_domain: 5 does not divide the domain's 18 trays");
  CHECK(error_with("racks_per_domain", "0") ==
        "p.xml: property nvlsim.racks_per_domain: must be in [1, 1024], got 0");
  auto properties = nvl72x2();
  properties["zones_per_domain"] = "2"s;
  properties["inter_zone_bw"] = "0"s;
  try {
    read(properties);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "p.xml: property nvlsim.inter_zone_bw: must be in [1, 1000000000000000], got 0");
  }
}
