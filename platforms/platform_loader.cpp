#include "platforms/platform_loader.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string>
#include <type_traits>

#include "models/input_error.hpp"

namespace nvlsim {

namespace {

class PropertyReader {
 public:
  PropertyReader(const simgrid::s4u::NetZone& zone, std::string file) : zone_(zone), file_(std::move(file)) {}

  // A property parsed as T (int or double) and checked against a lower bound.
  template <class T>
  T get(const char* key, T min_value) const {
    const std::string text = raw(key);
    T value{};
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size())
      fail(key,
           fmt::format("expected {}, got \"{}\"", std::is_integral_v<T> ? "an integer" : "a number", text));
    if (!(value >= min_value)) fail(key, fmt::format("must be >= {}, got {}", min_value, text));
    return value;
  }

 private:
  std::string raw(const char* key) const {
    const std::string id = std::string("nvlsim.") + key;
    const char* value = zone_.get_property(id);
    if (value == nullptr) fail(key, "missing (is this an nvlsim platform? `nvlsim platform` writes one)");
    return value;
  }

  [[noreturn]] void fail(const char* key, const std::string& what) const {
    throw InputError(fmt::format("{}: property nvlsim.{}: {}", file_, key, what));
  }

  const simgrid::s4u::NetZone& zone_;
  std::string file_;
};

// GPU and NIC hosts by id, in one pass over the engine's hosts: looking each name up walks every
// zone, which costs seconds on thousands of GPUs.
void collect_hosts(const simgrid::s4u::Engine& engine, const std::string& file, LoadedPlatform& p) {
  const int count = p.spec.shape.gpus();
  p.gpu_hosts.assign(count, nullptr);
  p.nic_hosts.assign(count, nullptr);
  for (auto* host : engine.get_all_hosts()) {
    const std::string_view name = host->get_name();
    auto* table = name.starts_with("gpu-") ? &p.gpu_hosts : name.starts_with("nic-") ? &p.nic_hosts : nullptr;
    if (table == nullptr) continue;
    int id = -1;
    const auto digits = name.substr(4);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (ec == std::errc{} && end == digits.data() + digits.size() && id >= 0 && id < count)
      (*table)[id] = host;
  }
  for (const auto* table : {&p.gpu_hosts, &p.nic_hosts})
    for (int i = 0; i < count; ++i)
      if ((*table)[i] == nullptr)
        throw InputError(fmt::format("{}: host {}{} is missing, but the properties describe {} GPUs", file,
                                     table == &p.gpu_hosts ? "gpu-" : "nic-", i, count));
}

}  // namespace

LoadedPlatform load_platform(simgrid::s4u::Engine& engine, const std::filesystem::path& path) {
  const std::string file = path.string();
  try {
    engine.load_platform(file);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
  const PropertyReader props(*engine.get_netzone_root(), file);
  LoadedPlatform p;
  if (props.get<int>("format_version", 1) != 1)
    throw InputError(file + ": unsupported nvlsim.format_version");
  p.spec.shape.domains = props.get<int>("domains", 1);
  p.spec.shape.trays_per_domain = props.get<int>("trays_per_domain", 1);
  p.spec.shape.gpus_per_tray = props.get<int>("gpus_per_tray", 1);
  auto& f = p.spec.fabric;
  f.nvlink_links_per_gpu = props.get<int>("nvlink_links_per_gpu", 1);
  f.nvlink_link_bw = props.get<double>("nvlink_link_bw", 1.0);
  f.nvlink_latency = props.get<double>("nvlink_latency", 0.0);
  f.nic_bw = props.get<double>("nic_bw", 1.0);
  f.ib_latency = props.get<double>("ib_latency", 0.0);
  f.ib_oversubscription = props.get<double>("ib_oversubscription", 1.0);
  f.nvlink_sharp = props.get<int>("nvlink_sharp", 0) != 0;
  f.ib_switch_radix = props.get<int>("ib_switch_radix", 2);
  if (const char* names = engine.get_netzone_root()->get_property("nvlsim.node_names"))
    p.spec.node_names = names;
  collect_hosts(engine, file, p);
  // Floyd zones compute their routes when sealed; sealing here lets routes be queried before the
  // simulation starts, and the per-policy children forked afterwards inherit it instead of redoing it.
  try {
    engine.seal_platform();
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
  return p;
}

}  // namespace nvlsim
