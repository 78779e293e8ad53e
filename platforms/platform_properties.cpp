#include "platforms/platform_properties.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <type_traits>

#include "models/input_error.hpp"
#include "models/read_number.hpp"

namespace nvlsim {

namespace {

// 2^20 GPUs (14,563 NVL72 racks) and 2^18 trays: far beyond any machine built, inside what a hostlist
// names, and with at most 256 links per GPU every component count (GPUs x links) stays inside int.
constexpr std::int64_t kMaxGpus = std::int64_t{1} << 20;
constexpr std::int64_t kMaxTrays = std::int64_t{1} << 18;

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

}  // namespace

PlatformSpec read_platform_properties(const PropertyLookup& lookup, const std::string& file) {
  const PropertyReader props(lookup, file);
  PlatformSpec spec;
  spec.format_version = props.get<int>("format_version", 1, 2);
  auto& s = spec.shape;
  s.domains = props.get<int>("domains", 1, kMaxGpus);
  s.trays_per_domain = props.get<int>("trays_per_domain", 1, 1024);
  s.gpus_per_tray = props.get<int>("gpus_per_tray", 1, 64);
  const std::int64_t trays = std::int64_t{s.domains} * s.trays_per_domain;
  const std::int64_t gpus = trays * s.gpus_per_tray;
  if (trays > kMaxTrays || gpus > kMaxGpus)
    props.fail("domains",
               fmt::format("{} domains of {} trays of {} GPUs make {} trays and {} GPUs, more than "
                           "{} trays or {} GPUs",
                           s.domains, s.trays_per_domain, s.gpus_per_tray, trays, gpus, kMaxTrays, kMaxGpus));
  auto& f = spec.fabric;
  // Bandwidths in bytes/s up to 1 PB/s and latencies up to 1 s: beyond any link, and far from overflow.
  f.nvlink_links_per_gpu = props.get<int>("nvlink_links_per_gpu", 1, 256);
  f.nvlink_link_bw = props.get<double>("nvlink_link_bw", 1.0, 1e15);
  f.nvlink_latency = props.get<double>("nvlink_latency", 0.0, 1.0);
  f.nic_bw = props.get<double>("nic_bw", 1.0, 1e15);
  f.ib_latency = props.get<double>("ib_latency", 0.0, 1.0);
  f.ib_oversubscription = props.get<double>("ib_oversubscription", 1.0, 1024.0);
  f.nvlink_sharp = props.get<int>("nvlink_sharp", 0, 1) != 0;
  f.ib_switch_radix = props.get<int>("ib_switch_radix", 2, 65536);
  if (const char* names = props.optional("node_names")) spec.node_names = names;
  return spec;
}

}  // namespace nvlsim
