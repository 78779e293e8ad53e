#pragma once
// SimGrid's routes between host pairs, asked once and kept: routes are fixed once the platform is loaded,
// and a job asks the same pairs at every step of its run.

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cstddef>
#include <vector>

namespace nvlsim {

// A direct-mapped table by host pair: a pair that lands on another's slot replaces it, and asking the
// replaced pair again asks SimGrid again. Asking SimGrid was a tenth of per-gpu's time on nvl72x1000.
class RouteMemo {
 public:
  // `slots` must be a power of two. The default, 32,768 slots of 40 bytes (1.3 MB), holds the pairs of
  // the jobs running on nvl72x1000.
  explicit RouteMemo(std::size_t slots = std::size_t{1} << 15);

  struct TwoLinks {
    const simgrid::s4u::Link* out = nullptr;  // the route's first link, when it has exactly two (else null)
    const simgrid::s4u::Link* in = nullptr;   // its second
    double latency = 0;                       // the route's, whatever its links
  };
  const TwoLinks& route(simgrid::s4u::Host* from, simgrid::s4u::Host* to);

 private:
  struct Slot {
    const simgrid::s4u::Host* from = nullptr;
    const simgrid::s4u::Host* to = nullptr;
    TwoLinks route;
  };
  std::vector<Slot> slots_;
  std::vector<simgrid::s4u::Link*> scratch_;
};

}  // namespace nvlsim
