#include "platforms/simgrid_message_hints.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace nvlsim {

std::string_view simgrid_message_hint(std::string_view message) noexcept {
  // (part of SimGrid 3.32's message, what it means)
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kHints{{
      {"Not a valid model!",
       "a <zone> has a routing attribute SimGrid does not know; it knows Full, Floyd, Dijkstra, "
       "DijkstraCache, "
       "None, Vivaldi and Wifi"},
      {"in prolog",
       "a platform file starts with <?xml version='1.0'?> and <!DOCTYPE platform SYSTEM "
       "\"https://simgrid.org/simgrid.dtd\">, as `nvlsim platform` writes it"},
      {"EOF", "the file ends inside an element: was it cut short?"},
  }};
  for (const auto& [part, hint] : kHints)
    if (message.find(part) != std::string_view::npos) return hint;
  return {};
}

std::string with_simgrid_hint(std::string_view message) {
  const std::string_view hint = simgrid_message_hint(message);
  return hint.empty() ? std::string(message) : fmt::format("{} ({})", message, hint);
}

}  // namespace nvlsim
