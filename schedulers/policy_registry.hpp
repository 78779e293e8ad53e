#pragma once
// Every placement policy, by name, and how specs ("sub-block:segment=8") become policies.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "schedulers/placement_policy.hpp"
#include "schedulers/policy_spec.hpp"

namespace nvlsim {

// Every registered policy, in the order "all" runs them.
std::span<const PolicyType* const> policy_types();

// Base names of every registered policy, in the order "all" runs them.
std::vector<std::string> policy_names();

// The registered policy `name`. Throws InputError "{where}: unknown policy 'NAME' (known: ...)".
const PolicyType& find_policy_type(std::string_view name, std::string_view where);

// A spec checked and typed against its policy's declared parameters. Throws InputError naming the spec,
// the key and the expected range when the name or a parameter is unknown or malformed.
PolicyConfig parse_policy(std::string_view spec);

std::unique_ptr<PlacementPolicy> make_policy(const PolicyConfig& config, const PolicyContext& context);
// parse_policy, then make_policy.
std::unique_ptr<PlacementPolicy> make_policy(std::string_view spec, const PolicyContext& context);

// Every policy with its summary and parameters (value, default, help), one per line, for --help.
std::string policy_listing();

}  // namespace nvlsim
