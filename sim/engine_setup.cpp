#include "sim/engine_setup.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/input_error.hpp"
#include "sim/output_stage.hpp"

namespace nvlsim {

namespace {

void say(const char* text) {
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text, std::strlen(text));
}

// SimGrid's own SIGINT handler exits with status 1 and a message below nvlsim's log threshold, so an
// interrupted run ended without a word. This one says so, and what the output folder holds, and then ends
// by the signal, as a shell expects.
extern "C" void interrupted(int signal) {
  say(signal == SIGINT ? "\nnvlsim: interrupted (SIGINT): " : "\nnvlsim: terminated (SIGTERM): ");
  say(output_stage_words());
  say("\n");
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

std::unique_ptr<simgrid::s4u::Engine> make_engine(std::span<const std::string> simgrid_args) {
  std::vector<std::string> args = {"nvlsim",
                                   "--log=root.thres:warning",
                                   "--cfg=network/model:CM02",
                                   "--cfg=network/crosstraffic:0",
                                   "--cfg=network/TCP-gamma:1e300",
                                   "--cfg=debug/clean-atexit:0"};
#ifdef NVLSIM_SANITIZE
  // ASan cannot follow SimGrid's hand-made stack switching in raw contexts.
  args.emplace_back("--cfg=contexts/factory:thread");
#endif
  args.insert(args.end(), simgrid_args.begin(), simgrid_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  std::unique_ptr<simgrid::s4u::Engine> engine;
  try {
    engine = std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
  } catch (const std::exception& e) {
    // Only the user's settings can be refused; SimGrid's message (an unknown key lists every known one
    // after the first line) names the setting.
    const std::string_view what = e.what();
    throw InputError(fmt::format("nvlsim: --cfg: {}", what.substr(0, what.find('\n'))));
  }
  // Again: SimGrid's engine has just put its own SIGINT handler in place.
  say_when_interrupted();
  return engine;
}

void keep_engine_until_exit(std::unique_ptr<simgrid::s4u::Engine> engine) {
  // A plain pointer, not a static object: nothing destroys it before the leak checker looks at exit.
  static simgrid::s4u::Engine* kept = nullptr;
  if (kept != nullptr) throw std::logic_error("nvlsim: a second engine kept until exit");
  kept = engine.release();
}

void say_when_interrupted() {
  for (int signal : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    ::sigaction(signal, nullptr, &old);
    if (old.sa_handler != SIG_IGN)
      std::signal(signal, interrupted);  // a background job's SIGINT stays ignored
  }
}

}  // namespace nvlsim
