#include "sim/engine_setup.hpp"

#include <string>
#include <vector>

namespace nvlsim {

std::unique_ptr<simgrid::s4u::Engine> make_engine() {
  std::vector<std::string> args = {"nvlsim", "--log=root.thres:warning", "--cfg=network/model:CM02",
                                   "--cfg=network/crosstraffic:0", "--cfg=network/TCP-gamma:1e300"};
#ifdef NVLSIM_SANITIZE
  // ASan cannot follow SimGrid's hand-made stack switching in raw contexts.
  args.emplace_back("--cfg=contexts/factory:thread");
#endif
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  return std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
}

}  // namespace nvlsim
