#pragma once
// Flat byte encoding of a policy's result, to hand it from a child process to the parent.

#include <string>
#include <string_view>

#include "sim/policy_run.hpp"

namespace nvlsim {

std::string encode(const PolicyResult& result);
// Throws std::runtime_error on truncated or malformed bytes.
PolicyResult decode(std::string_view bytes);

}  // namespace nvlsim
