// NVLink 6's partial operation: the systems the catalogue says have it, and platform files that ask for it.
// No placement depends on it (docs/failures.md): Slurm leaves a down tray out of its block on every system.

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "models/system_catalog.hpp"
#include "platforms/platform_properties.hpp"
#include "platforms/platform_spec.hpp"

using namespace nvlsim;

TEST_CASE("partial operation is NVLink 6's: on every Vera Rubin system, on no Blackwell one", "[systems]") {
  for (const SystemFacts& s : systems()) {
    INFO(s.name);
    CHECK(s.partial_operation.value == s.name.starts_with("vr-"));
    CHECK(system_platform(s, s.racks_per_domain.value).partial_operation == s.partial_operation.value);
  }
}

TEST_CASE("nvlsim.partial_operation: 0 or 1, off when a file does not set it", "[platform]") {
  const std::map<std::string, std::string> properties = {
      {"format_version", "2"},    {"system", "vr-nvl144"},      {"domains", "1"},
      {"trays_per_domain", "18"}, {"gpus_per_tray", "4"},       {"nvlink_links_per_gpu", "36"},
      {"nvlink_link_bw", "5e10"}, {"nvlink_latency", "0"},      {"nic_bw", "2e11"},
      {"ib_latency", "0"},        {"ib_oversubscription", "1"}, {"nvlink_sharp", "0"},
      {"ib_switch_radix", "64"}};
  const char* partial = nullptr;  // nvlsim.partial_operation; nullptr = not in the file
  const auto read = [&] {
    return read_platform_properties(
        [&](const std::string& key) -> const char* {
          if (key == "nvlsim.partial_operation") return partial;
          const auto found = properties.find(key.substr(std::string("nvlsim.").size()));
          return found == properties.end() ? nullptr : found->second.c_str();
        },
        "p.xml");
  };
  // Written before partial operation existed: as it behaved then, whatever the system.
  CHECK_FALSE(read().partial_operation);
  partial = "1";
  CHECK(read().partial_operation);
  partial = "2";
  CHECK_THROWS_WITH(read(), "p.xml: property nvlsim.partial_operation: must be in [0, 1], got 2");
}
