#pragma once
// The policies a replay compares, built from their specs, a policy file and a Slurm topology on the
// loaded platform.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platforms/platform_loader.hpp"
#include "schedulers/placement_policy.hpp"
#include "schedulers/policy_spec.hpp"

namespace nvlsim {

struct PolicyRequest {
  std::vector<std::string> specs;                     // NAME[:key=value...], in order
  std::optional<std::string> policy_file;             // JSON list of more specs, appended
  std::optional<std::string> topology;                // Slurm topology.conf / topology.yaml
  SlurmVersion slurm_version = kDefaultSlurmVersion;  // --slurm-version: whose placement rules
};

// The context every policy is built in: the platform's shape, the fabric's leaf size (for `tree`), its
// node names and the topology file, if any. `platform_name` names the platform in error messages.
PolicyContext policy_context(const PolicyRequest& request, const LoadedPlatform& platform,
                             const std::string& platform_name);

// Specs from the request, then from its file; per-gpu, block and sub-block when neither gives any. Built in
// the parent so a bad spec or topology fails before any replay starts. Throws InputError, also for a
// policy given twice, however its parameters are ordered (PolicyConfig::identity).
std::vector<std::unique_ptr<PlacementPolicy>> make_policies(const PolicyRequest& request,
                                                            const LoadedPlatform& platform,
                                                            const std::string& platform_name);

}  // namespace nvlsim
