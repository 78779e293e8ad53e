#pragma once
// Reading typed values out of a policy spec's key=value parameters.

#include <optional>
#include <string_view>

#include "schedulers/policy_spec.hpp"

namespace nvlsim {

// The parameter's value, or nullopt when the spec does not set it.
std::optional<std::string_view> find_param(const PolicySpec& spec, std::string_view key);

// An integer parameter in [min, max]; `fallback` when absent. Throws InputError naming spec and key.
int int_param(const PolicySpec& spec, std::string_view key, int fallback, int min, int max);

// A switch given as key=1 / key=0 (the spec grammar has no bare keys); false when absent.
bool flag_param(const PolicySpec& spec, std::string_view key);

}  // namespace nvlsim
