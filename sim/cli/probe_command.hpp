#pragma once
// `nvlsim probe`: one collective, or one route, on a platform, in isolation. It shows what the fabric
// model does: which links a transfer crosses, and how long a collective takes on SimGrid against its
// closed form.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/collective.hpp"

namespace nvlsim {

struct ProbeOptions {
  std::string platform;
  std::vector<std::vector<int>> jobs;        // each --gpus "0-3 72-75" is one job; jobs run at once
  std::optional<std::pair<int, int>> route;  // --route A B
  Collective collective = Collective::all_reduce;
  double bytes = 1e9;                    // message size per GPU
  std::vector<std::string> engine_args;  // SimGrid's --cfg=... and --log=...
};

// Declares `probe` and its options on `app`, filling `o`.
CLI::App* add_probe_command(CLI::App& app, ProbeOptions& o);

// Returns the exit status; throws InputError for GPUs beyond the platform or a bad platform.
int probe_command(const ProbeOptions& options);

}  // namespace nvlsim
