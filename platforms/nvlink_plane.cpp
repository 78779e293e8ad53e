#include "platforms/nvlink_plane.hpp"

#include <fmt/format.h>

#include "models/nvlink_domain_graph.hpp"
#include "platforms/nvlink_plane_zone.hpp"
#include "platforms/sealed_link.hpp"

namespace nvlsim {

void build_nvlink_plane(simgrid::s4u::NetZone& parent, const PlatformSpec& spec) {
  const auto& s = spec.shape;
  const auto& f = spec.fabric;
  auto* impl = new NvlinkPlaneZone("nvl");  // owned by its parent from here on
  impl->set_parent(parent.get_impl());
  simgrid::s4u::NetZone& zone = *impl->get_iface();
  // A cross-zone transfer takes one more switch hop on each side (DOMAIN.md: "probably 2 hops"), so a
  // zone link adds the latency of a port.
  for (int domain = 0; domain < s.domains; ++domain)
    for (int z = 0; z < s.zones_per_domain; ++z)
      impl->add_zone_link(
          sealed_link(zone, fmt::format("nvl-zone-{}-{}", domain, z), f.zone_link_bw(), f.nvlink_latency));
  const NvlinkDomainGraph graph(s.gpus_per_domain(), f.nvlink_links_per_gpu, f.nvlink_link_bw);
  const int per_zone = s.gpus_per_zone();
  for (int gpu = 0; gpu < s.gpus(); ++gpu) {
    auto& port = sealed_link(zone, fmt::format("nvl_link_{}", gpu), graph.gpu_bandwidth(0), f.nvlink_latency);
    auto* host = zone.create_host(fmt::format("gpu-{}", gpu), 1.0);
    host->seal();
    const int domain = s.domain_of_gpu(gpu);
    impl->add_gpu(*host, port, domain, domain * s.zones_per_domain + gpu % s.gpus_per_domain() / per_zone);
  }
}

}  // namespace nvlsim
