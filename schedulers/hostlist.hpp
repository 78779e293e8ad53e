#pragma once
// Slurm hostlist expressions: "node[001-018,020],other5" -> node001 ... node018, node020, other5.

#include <string>
#include <string_view>
#include <vector>

namespace nvlsim {

// Expands every bracket group (several per name allowed, zero padding kept from the range's start).
// Throws std::invalid_argument saying what is wrong (unbalanced bracket, bad or reversed range, empty name,
// more than 262,144 names or 16 MiB of them).
std::vector<std::string> expand_hostlist(std::string_view expression);

// The inverse for one bracket group: names ending in numbers that run on under one prefix and one width
// become "prefix[a-b,c]", in the order given; other names stay as they are. expand_hostlist of the
// result gives the names back.
std::string compress_hostlist(const std::vector<std::string>& names);

}  // namespace nvlsim
