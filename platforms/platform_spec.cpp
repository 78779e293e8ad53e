#include "platforms/platform_spec.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace nvlsim {

PlatformSpec system_platform(const SystemFacts& system, int racks) {
  const int racks_per_domain = system.racks_per_domain.value;
  if (racks % racks_per_domain != 0)
    throw std::invalid_argument(fmt::format("{} racks of {}: not a multiple of its {} racks per domain",
                                            racks, system.name, racks_per_domain));
  PlatformSpec spec;
  spec.system = system.name;
  auto& s = spec.shape;
  s.domains = racks / racks_per_domain;
  s.trays_per_domain = system.trays_per_domain.value;
  s.gpus_per_tray = system.gpus_per_tray.value;
  s.racks_per_domain = racks_per_domain;
  s.zones_per_domain = system.zones_per_domain.value;
  spec.partial_operation = system.partial_operation.value;
  auto& f = spec.fabric;
  f.nvlink_links_per_gpu = system.nvlink_links_per_gpu.value;
  f.nvlink_link_bw = system.nvlink_link_bw.value;
  if (s.zones_per_domain > 1) {
    f.inter_zone_bw = system.inter_zone_bw.value;
    f.gpus_per_zone = s.gpus_per_zone();
  }
  f.nic_bw = system.nic_bw.value;
  return spec;
}

PlatformSpec nvl72_platform(int racks) {
  return system_platform(default_system(), racks);
}

}  // namespace nvlsim
