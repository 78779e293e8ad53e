#pragma once
// Makes placement policies from their specs ("per-gpu", later "sub-block:segment=8").

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "schedulers/placement_policy.hpp"
#include "schedulers/policy_spec.hpp"

namespace nvlsim {

// Throws InputError naming the spec when the name or a parameter is unknown or malformed.
std::unique_ptr<PlacementPolicy> make_policy(std::string_view spec, const PolicyContext& context);

// Base names of every registered policy, in the order "all" runs them.
std::vector<std::string> policy_names();

}  // namespace nvlsim
