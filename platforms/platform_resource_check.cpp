#include "platforms/platform_resource_check.hpp"

#include <fmt/format.h>

#include <cmath>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "models/input_error.hpp"

namespace nvlsim {

namespace {

[[noreturn]] void refuse(const std::string& file, std::string_view kind, std::string_view name,
                         std::string_view what, double value, std::string_view unit) {
  throw InputError(fmt::format("{}: {} {}: {}, got {} {}", file, kind, name, what, value, unit));
}

}  // namespace

void check_platform_resources(const simgrid::s4u::Engine& engine, const std::string& file) {
  for (const simgrid::s4u::Link* link : engine.get_all_links()) {
    const double bandwidth = link->get_bandwidth();
    if (!(bandwidth > 0) || !std::isfinite(bandwidth))
      refuse(file, "link", link->get_name(), "bandwidth must be positive and finite", bandwidth, "B/s");
    const double latency = link->get_latency();
    if (!(latency >= 0) || !std::isfinite(latency))
      refuse(file, "link", link->get_name(), "latency must be at least 0 and finite", latency, "s");
  }
  for (const simgrid::s4u::Host* host : engine.get_all_hosts()) {
    const double speed = host->get_speed();
    if (!(speed > 0) || !std::isfinite(speed))
      refuse(file, "host", host->get_name(), "speed must be positive and finite", speed, "flop/s");
  }
}

}  // namespace nvlsim
