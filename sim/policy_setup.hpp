#pragma once
// The policies a run compares, built from --policy, --policy-file and --topology on the loaded platform.

#include <memory>
#include <vector>

#include "platforms/platform_loader.hpp"
#include "schedulers/placement_policy.hpp"
#include "sim/cli_options.hpp"

namespace nvlsim {

// Specs from --policy, then from --policy-file; per-gpu when neither is given. Built in the parent so a
// bad spec or topology fails before any replay starts. Throws InputError.
std::vector<std::unique_ptr<PlacementPolicy>> make_policies(const RunOptions& options,
                                                            const LoadedPlatform& platform);

}  // namespace nvlsim
