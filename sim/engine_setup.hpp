#pragma once
// The SimGrid engine with the configuration nvlsim relies on.

#include <memory>
#include <span>
#include <string>

#include <simgrid/s4u/Engine.hpp>

namespace nvlsim {

// Network model settings (see docs/model.md for why each is set):
//   network/model:CM02        plain max-min sharing, no LV08 bandwidth (0.97) or latency (13.01) factors,
//                             so an uncontended transfer takes latency + bytes / bandwidth exactly;
//   network/crosstraffic:0    no 5% reverse-direction load from acknowledgements: NVLink and InfiniBand
//                             flows are full duplex and the collective already sends both ways;
//   network/TCP-gamma:1e300   no TCP-window bound (gamma / 2 latency), which would cap 900 GB/s flows
//                             as soon as links carry latency;
//   debug/clean-atexit:0      the engine is torn down when its owner destroys it, not again at exit
//                             (keep_engine_until_exit skips the teardown altogether).
// `simgrid_args` (SimGrid's own "--cfg=NAME:VALUE" and "--log=..." arguments) follow these, so they
// override them; a setting SimGrid refuses throws InputError. The engine's configuration lives in the
// process, so children forked per policy keep it.
// SIGINT and SIGTERM then print one line saying the run was interrupted and what its output folder holds
// (output_stage.hpp), and end the process by the signal.
std::unique_ptr<simgrid::s4u::Engine> make_engine(std::span<const std::string> simgrid_args = {});

// Keeps the engine until the process ends, never tearing it down: SimGrid frees its zones, links and
// routes one by one, 2 s at 1,000 racks, after the results are already written. The process's end
// returns the memory instead; the engine stays reachable, so leak checkers find nothing lost.
void keep_engine_until_exit(std::unique_ptr<simgrid::s4u::Engine> engine);

// From now on SIGINT and SIGTERM print that one line and end the process by the signal: a run says so from
// its first step, not only once its engine exists.
void say_when_interrupted();

}  // namespace nvlsim
