#pragma once
// A split-duplex link created in a zone nvlsim builds, with its latency, sealed: the one way both planes
// that nvlsim builds from a file's properties make their links.

#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <string>

namespace nvlsim {

inline simgrid::s4u::SplitDuplexLink& sealed_link(simgrid::s4u::NetZone& zone, const std::string& name,
                                                  double bw, double latency) {
  auto* link = zone.create_split_duplex_link(name, bw);
  link->set_latency(latency)->seal();
  return *link;
}

}  // namespace nvlsim
