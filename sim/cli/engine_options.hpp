#pragma once
// SimGrid's own --cfg=NAME:VALUE and --log=CATEGORY.KEY:VALUE, taken by the commands that start an engine
// and handed to it unchanged (sim/engine_setup.hpp).

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace nvlsim {

// Adds --cfg and --log to `command`, both repeatable; each becomes "--cfg=..." or "--log=..." in `args`.
// SimGrid aborts on some malformed values, so their form is checked here (InputError naming the flag);
// what SimGrid itself refuses is reported when the engine starts.
void add_engine_options(CLI::App& command, std::vector<std::string>& args);

}  // namespace nvlsim
