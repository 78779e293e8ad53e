#include "sim/sweep/grid_keys.hpp"

#include <algorithm>

namespace nvlsim {

const GridKey* GridKeys::find(const std::string& name) const {
  const auto found = std::ranges::find(keys, name, &GridKey::name);
  return found == keys.end() ? nullptr : &*found;
}

std::string GridKeys::names() const {
  std::string text;
  for (const GridKey& k : keys) text += (text.empty() ? "" : ", ") + k.name;
  return text;
}

}  // namespace nvlsim
