#include "platforms/ib_plane.hpp"

#include <fmt/format.h>

#include <vector>

#include "models/ib_fabric.hpp"
#include "platforms/ib_plane_zone.hpp"
#include "platforms/sealed_link.hpp"

namespace nvlsim {

// Links and hosts are created in the order format 1's XML declared them (NIC links leaf by leaf, then
// leaf uplinks, then core links; NICs leaf by leaf), so SimGrid's solver meets them in the same order.
const IbPlaneZone& build_ib_plane(simgrid::s4u::NetZone& parent, const PlatformSpec& spec) {
  const IbFabric fabric(spec.shape, spec.fabric);
  const double lat = spec.fabric.ib_latency;
  std::vector<int> pod_of_leaf(fabric.leaves());
  for (int leaf = 0; leaf < fabric.leaves(); ++leaf) pod_of_leaf[leaf] = fabric.pod_of_leaf(leaf);
  auto* impl = new IbPlaneZone("ib", std::move(pod_of_leaf));  // owned by its parent from here on
  impl->set_parent(parent.get_impl());
  simgrid::s4u::NetZone& zone = *impl->get_iface();

  std::vector<std::vector<simgrid::s4u::SplitDuplexLink*>> nic_links(fabric.leaves());
  for (int leaf = 0; leaf < fabric.leaves(); ++leaf)
    for (int gpu : fabric.gpus_of_leaf(leaf))
      nic_links[leaf].push_back(
          &sealed_link(zone, fmt::format("ib-leaf-{}_link_{}", leaf, gpu), spec.fabric.nic_bw, lat));
  // Every flow over a leaf's uplink also crosses, the same way, the link of one of the leaf's NICs (flows
  // run NIC to NIC, and back traffic follows the reverse route), so the uplink's load never exceeds what
  // those NIC links carry: it cannot saturate unless its capacity is below theirs together (an
  // oversubscribed leaf). A pod's core links carry all its leaves' uplinks (non-blocking), so by the
  // same argument one level up they never saturate.
  for (int leaf = 0; leaf < fabric.leaves(); ++leaf) {
    const double below = static_cast<double>(nic_links[leaf].size()) * spec.fabric.nic_bw;
    impl->add_leaf_uplink(sealed_link(zone, fmt::format("ib-leaf-{}-up", leaf), fabric.leaf_uplink_bw(), lat),
                          fabric.leaf_uplink_bw() < below);
  }
  for (int pod = 0; pod < fabric.pods() && fabric.pods() > 1; ++pod)
    impl->add_pod_uplink(sealed_link(zone, fmt::format("ib-pod-{}-up", pod), fabric.pod_uplink_bw(pod), lat),
                         false);
  for (int leaf = 0; leaf < fabric.leaves(); ++leaf) {
    const auto gpus = fabric.gpus_of_leaf(leaf);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      auto* nic = zone.create_host(fmt::format("nic-{}", gpus[i]), 1.0);
      nic->seal();
      impl->add_nic(*nic, *nic_links[leaf][i], leaf);
    }
  }
  return *impl;
}

}  // namespace nvlsim
