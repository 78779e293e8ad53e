#include "platforms/platform_properties.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "models/input_error.hpp"
#include "models/read_number.hpp"

namespace nvlsim {

namespace {

class PropertyReader {
 public:
  PropertyReader(const PropertyLookup& lookup, const std::string& file) : lookup_(lookup), file_(file) {}

  // A property parsed as T (int or double), finite, in [low, high].
  template <class T>
  T get(const char* key, T low, T high) const {
    const std::string text = raw(key);
    const auto number = read_number<T>(text);
    if (number.error == NumberError::out_of_range || (number && (number.value < low || number.value > high)))
      fail(key, fmt::format("must be in [{}, {}], got {}", low, high, text));
    if (!number)
      fail(key, fmt::format("expected {}, got \"{}\"",
                            std::is_integral_v<T> ? "an integer" : "a finite number", text));
    return number.value;
  }

  // As get, or `fallback` when the file does not set the property.
  template <class T>
  T get_or(const char* key, T low, T high, T fallback) const {
    return optional(key) == nullptr ? fallback : get<T>(key, low, high);
  }

  [[noreturn]] void fail(const char* key, const std::string& what) const {
    throw InputError(fmt::format("{}: property nvlsim.{}: {}", file_, key, what));
  }

  const char* optional(const char* key) const { return lookup_(std::string("nvlsim.") + key); }

 private:
  std::string raw(const char* key) const {
    const char* value = optional(key);
    if (value == nullptr) fail(key, "missing (is this an nvlsim platform? `nvlsim platform` writes one)");
    return value;
  }

  const PropertyLookup& lookup_;
  const std::string& file_;
};

// The file's system, or the default one when it names none.
const SystemFacts& read_system(const PropertyReader& props) {
  const char* name = props.optional("system");
  if (name == nullptr) return default_system();
  try {
    return system_named(name);
  } catch (const InputError& e) {
    props.fail("system", e.what());
  }
}

}  // namespace

PlatformSpec read_platform_properties(const PropertyLookup& lookup, const std::string& file) {
  const PropertyReader props(lookup, file);
  PlatformSpec spec;
  spec.format_version = props.get<int>("format_version", 1, 3);
  const SystemFacts& system = read_system(props);
  spec.system = system.name;
  auto& s = spec.shape;
  s.domains = props.get<int>("domains", 1, kMaxPlatformGpus);
  s.trays_per_domain = props.get<int>("trays_per_domain", 1, 1024);
  s.gpus_per_tray = props.get<int>("gpus_per_tray", 1, 64);
  // Files written before systems have neither: their system's figures (GB200 NVL72: 1 and 1).
  s.racks_per_domain = props.get_or<int>("racks_per_domain", 1, 1024, system.racks_per_domain.value);
  s.zones_per_domain = props.get_or<int>("zones_per_domain", 1, 1024, system.zones_per_domain.value);
  for (const auto& [key, parts] :
       {std::pair{"racks_per_domain", s.racks_per_domain}, std::pair{"zones_per_domain", s.zones_per_domain}})
    if (s.trays_per_domain % parts != 0)
      props.fail(key, fmt::format("{} does not divide the domain's {} trays", parts, s.trays_per_domain));
  const std::int64_t trays = std::int64_t{s.domains} * s.trays_per_domain;
  const std::int64_t gpus = trays * s.gpus_per_tray;
  if (trays > kMaxPlatformTrays || gpus > kMaxPlatformGpus)
    props.fail("domains",
               fmt::format("{} domains of {} trays of {} GPUs make {} trays and {} GPUs, more than "
                           "{} trays or {} GPUs",
                           s.domains, s.trays_per_domain, s.gpus_per_tray, trays, gpus, kMaxPlatformTrays,
                           kMaxPlatformGpus));
  auto& f = spec.fabric;
  // Bandwidths in bytes/s up to 1 PB/s and latencies up to 1 s: beyond any link, and far from overflow.
  f.nvlink_links_per_gpu = props.get<int>("nvlink_links_per_gpu", 1, 256);
  f.nvlink_link_bw = props.get<double>("nvlink_link_bw", 1.0, 1e15);
  f.nvlink_latency = props.get<double>("nvlink_latency", 0.0, 1.0);
  f.nic_bw = props.get<double>("nic_bw", 1.0, 1e15);
  f.ib_latency = props.get<double>("ib_latency", 0.0, 1.0);
  f.ib_oversubscription = props.get<double>("ib_oversubscription", 1.0, 1024.0);
  f.nvlink_sharp = props.get<int>("nvlink_sharp", 0, 1) != 0;
  // NCCL's efficiencies and NIC count came with format 2's second revision; older files get the defaults.
  const FabricParams nccl;
  f.nvlink_efficiency = props.get_or<double>("nvlink_efficiency", 0.01, 1.0, nccl.nvlink_efficiency);
  f.nvls_efficiency = props.get_or<double>("nvls_efficiency", 0.01, 1.0, nccl.nvls_efficiency);
  f.nic_efficiency = props.get_or<double>("nic_efficiency", 0.01, 1.0, nccl.nic_efficiency);
  f.nccl_nics_per_domain = props.get_or<int>("nccl_nics_per_domain", 1, 65536, nccl.nccl_nics_per_domain);
  f.ib_switch_radix = props.get<int>("ib_switch_radix", 2, 65536);
  if (s.zones_per_domain > 1) {
    f.inter_zone_bw = props.get_or<double>("inter_zone_bw", 1.0, 1e15, system.inter_zone_bw.value);
    if (f.inter_zone_bw == 0)
      props.fail(
          "inter_zone_bw",
          fmt::format("missing: a domain of {} zones needs the bandwidth between them", s.zones_per_domain));
    f.gpus_per_zone = s.gpus_per_zone();
    // Format 2 wrote one NVLink cluster, with no link between zones.
    if (spec.format_version < 3)
      props.fail("format_version",
                 fmt::format("{} describes NVLink domains of {} zones without the links between them; "
                             "write it again with `nvlsim platform` (format 3)",
                             spec.format_version, s.zones_per_domain));
  }
  spec.partial_operation = props.get_or<int>("partial_operation", 0, 1, 0) != 0;
  if (const char* names = props.optional("node_names")) spec.node_names = names;
  return spec;
}

}  // namespace nvlsim
