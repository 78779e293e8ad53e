#pragma once
// One SimGrid zone for every NIC of the InfiniBand plane, routing by the fat tree's rule: NIC link, then,
// unless both NICs hang off one leaf, the source leaf's uplink, both pods' core links when the leaves are in
// different pods, the destination leaf's uplink (down), and the destination NIC link.
//
// Why a zone of nvlsim's own: SimGrid 3.32 seals each zone by scanning every host of the platform, so a
// zone per leaf switch made loading cost leaves x hosts, quadratic in racks. None of SimGrid's own zones
// can hold every NIC and keep same-leaf pairs off the uplinks at this size (docs/model.md); a route
// computed from three small tables can, and costs nothing to seal.

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <string>
#include <utility>
#include <vector>

namespace nvlsim {

class IbPlaneZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  // `pod_of_leaf[l]` is leaf l's pod; core links are routed only between leaves of different pods.
  IbPlaneZone(const std::string& name, std::vector<int> pod_of_leaf);

  // Leaf uplinks in leaf order, then pod core links in pod order (none with one pod). A link that can never
  // be the bottleneck of a flow crossing it (`can_saturate` false) adds its latency to routes but is left
  // out of their link lists, so SimGrid's solver neither sees it nor joins unrelated jobs' flows through it.
  void add_leaf_uplink(const simgrid::s4u::SplitDuplexLink& link, bool can_saturate);
  void add_pod_uplink(const simgrid::s4u::SplitDuplexLink& link, bool can_saturate);
  // A NIC host of this zone, its link to its leaf switch, and the leaf.
  void add_nic(const simgrid::s4u::Host& nic, const simgrid::s4u::SplitDuplexLink& link, int leaf);

  // Whether SimGrid's route between two distinct NICs of this zone (their netpoints) is their two NIC links
  // alone, the other links it crosses left out of the solve; `latency` gets the route's. The same answer
  // as route_to, without SimGrid's walk of the zone tree and its link vectors: through the route memo's
  // misses, which are mostly NIC pairs no earlier job used, that walk was 12% of per-gpu's replay on
  // nvl72x1000. Throws std::logic_error for points that are not NICs of this zone.
  bool nic_links_only(const simgrid::kernel::routing::NetPoint* src,
                      const simgrid::kernel::routing::NetPoint* dst, double& latency) const;

 private:
  // One split-duplex link: the side a route takes going up (towards the core), the side coming down.
  struct Pipe {
    simgrid::kernel::resource::StandardLinkImpl* up = nullptr;
    simgrid::kernel::resource::StandardLinkImpl* down = nullptr;
    double latency = 0;
    bool solved = true;  // in routes' link lists
  };
  struct Nic {
    Pipe link;
    int leaf = -1;
  };

  static Pipe pipe(const simgrid::s4u::SplitDuplexLink& link, bool solved);
  // The two NICs, checked to be this zone's.
  std::pair<const Nic&, const Nic&> nics(const simgrid::kernel::routing::NetPoint* src,
                                         const simgrid::kernel::routing::NetPoint* dst) const;
  // Calls take(pipe, going_up) for each pipe of the route, in route order.
  template <typename Take>
  void walk(const Nic& from, const Nic& to, Take take) const;
  void get_local_route(const simgrid::kernel::routing::NetPoint* src,
                       const simgrid::kernel::routing::NetPoint* dst, simgrid::kernel::routing::Route* into,
                       double* latency) override;

  std::vector<int> pod_of_leaf_;
  std::vector<Pipe> leaves_;
  std::vector<Pipe> pods_;
  std::vector<Nic> nics_;  // index = the NIC's netpoint id in this zone
};

}  // namespace nvlsim
