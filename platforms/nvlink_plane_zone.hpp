#pragma once
// One SimGrid zone for every GPU of a platform whose NVLink domains have zones (Rubin Ultra NVL576): a
// route between two GPUs of a domain is the sender's port link up, then, when their zones differ, the
// sender's zone link up (onto the midplane) and the receiver's zone link down, and the receiver's port
// link down. A SimGrid cluster has one backbone at most, so it cannot hold a link per zone.

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <string>
#include <vector>

namespace nvlsim {

class NvlinkPlaneZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  explicit NvlinkPlaneZone(const std::string& name);

  // Zone links in order: (domain, zone) = domain * zones_per_domain + zone.
  void add_zone_link(const simgrid::s4u::SplitDuplexLink& link);
  // A GPU host of this zone, its port link, its domain and its zone's index among add_zone_link's.
  void add_gpu(const simgrid::s4u::Host& gpu, const simgrid::s4u::SplitDuplexLink& port, int domain,
               int zone);

 private:
  struct Pipe {
    simgrid::kernel::resource::StandardLinkImpl* up = nullptr;
    simgrid::kernel::resource::StandardLinkImpl* down = nullptr;
    double latency = 0;
  };
  struct Gpu {
    Pipe port;
    int domain = -1;
    int zone = -1;
  };

  static Pipe pipe(const simgrid::s4u::SplitDuplexLink& link);
  void get_local_route(const simgrid::kernel::routing::NetPoint* src,
                       const simgrid::kernel::routing::NetPoint* dst, simgrid::kernel::routing::Route* into,
                       double* latency) override;

  std::vector<Pipe> zones_;
  std::vector<Gpu> gpus_;  // index = the GPU's netpoint id in this zone
};

}  // namespace nvlsim
