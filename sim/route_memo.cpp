#include "sim/route_memo.hpp"

#include <cstdint>
#include <stdexcept>

namespace nvlsim {

RouteMemo::RouteMemo(std::size_t slots) : slots_(slots) {
  if (slots == 0 || (slots & (slots - 1)) != 0)
    throw std::invalid_argument("RouteMemo: the slots must be a power of two");
}

const RouteMemo::TwoLinks& RouteMemo::route(simgrid::s4u::Host* from, simgrid::s4u::Host* to) {
  const auto a = reinterpret_cast<std::uintptr_t>(from);
  const auto b = reinterpret_cast<std::uintptr_t>(to);
  // Host objects are allocated apart: the multiplications spread their addresses over the high bits.
  const auto hash = ((a * 0x9E3779B97F4A7C15u) ^ (b * 0xC2B2AE3D27D4EB4Fu)) >> 40;
  Slot& slot = slots_[static_cast<std::size_t>(hash) & (slots_.size() - 1)];
  if (slot.from != from || slot.to != to) {
    scratch_.clear();
    double latency = 0;
    from->route_to(to, scratch_, &latency);
    const bool two = scratch_.size() == 2;
    slot = {from, to, {two ? scratch_[0] : nullptr, two ? scratch_[1] : nullptr, latency}};
  }
  return slot.route;
}

}  // namespace nvlsim
