#pragma once
// `nvlsim probe`: one collective, or one route, on a platform, in isolation. It shows what the fabric
// model does: which links a transfer crosses, and how long a collective takes on SimGrid against its
// closed form.

#include <span>
#include <string>

namespace nvlsim {

// Returns the exit status; throws InputError for bad flags.
int probe_command(std::span<const std::string> args);

std::string probe_usage();

}  // namespace nvlsim
