#pragma once
// The SimGrid engine with the configuration nvlsim relies on.

#include <memory>

#include <simgrid/s4u/Engine.hpp>

namespace nvlsim {

// Network model settings (see docs/simgrid.md for why each is set):
//   network/model:CM02        plain max-min sharing, no LV08 bandwidth (0.97) or latency (13.01) factors,
//                             so an uncontended transfer takes latency + bytes / bandwidth exactly;
//   network/crosstraffic:0    no 5% reverse-direction load from acknowledgements: NVLink and InfiniBand
//                             flows are full duplex and the collective already sends both ways;
//   network/TCP-gamma:1e300   no TCP-window bound (gamma / 2 latency), which would cap 900 GB/s flows
//                             as soon as links carry latency.
// SIGINT and SIGTERM then print one line saying the run was interrupted and end the process by the signal.
std::unique_ptr<simgrid::s4u::Engine> make_engine();

}  // namespace nvlsim
