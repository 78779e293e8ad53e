#pragma once
// Batsim-style interval sets of resource ids: "0-31 72-79".

#include <span>
#include <string>

namespace nvlsim {

// `ids` ascending; consecutive runs become "a-b", single ids "a", separated by spaces.
std::string interval_set(std::span<const int> ids);

}  // namespace nvlsim
