#include "analysis/interval_set.hpp"

#include <fmt/format.h>

namespace nvlsim {

std::string interval_set(std::span<const int> ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ' ';
    out += i == j ? fmt::format("{}", ids[i]) : fmt::format("{}-{}", ids[i], ids[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace nvlsim
