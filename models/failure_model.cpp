#include "models/failure_model.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <queue>
#include <random>
#include <string>

#include "models/input_error.hpp"
#include "models/json_file.hpp"

namespace nvlsim {

namespace {

using nlohmann::json;

constexpr double kHour = 3600;

// Llama 3's run: 16,384 GPUs for 54 days; one NIC per GPU, one host per 8 GPUs. On NVL72 one
// NVSwitch chip serves 4 GPUs (18 per 72).
constexpr double kLlamaGpuHours = 16384.0 * 54 * 24;
constexpr double kLlamaHosts = 16384.0 / 8;
constexpr double kLlamaSwitches = 16384.0 / 4;

FailureModel make_llama3() {
  FailureModel m;
  const double hours = 54 * 24;
  // Faulty GPU 148, HBM3 72, SRAM 19, GPU system processor 17, thermal interface and sensor 6.
  m[Component::gpu].mtbf_hours = kLlamaGpuHours / (148 + 72 + 19 + 17 + 6);
  // Network switch or cable 35, charged to the NVSwitch chips that carry a rack's scale-up traffic.
  m[Component::nvswitch].mtbf_hours = kLlamaSwitches * hours / 35;
  m[Component::nic].mtbf_hours = kLlamaGpuHours / 7;
  // Host hardware: SSD 3, power supply 3, chassis 2, IO expansion board 2, CPU 2, system memory 2.
  m[Component::tray].mtbf_hours = kLlamaHosts * hours / 14;
  for (Component c : {Component::gpu, Component::nvswitch, Component::nic, Component::tray})
    m[c].mttr_hours = 48;
  return m;
}

[[noreturn]] void fail(const std::string& file, const std::string& where, std::string_view what) {
  throw InputError(fmt::format("{}: {}: {}", file, where, what));
}

// Bounds that keep every drawn time finite and the number of failures per simulated hour bounded
// (docs/inputs.md, "Failures"): a component fails at most once per MTTR after a repair, and on average
// once per MTBF.
constexpr double kMinMtbfHours = 1;
constexpr double kMinMttrHours = 0.01;  // 36 s: a reboot
constexpr double kMaxHours = 1e9;       // 114,000 years; far beyond any run, far from overflow
constexpr double kMinWeibullShape = 0.1;
constexpr double kMaxWeibullShape = 10;
constexpr double kMaxLognormalSigma = 3;  // a draw 8 sigma out is then e^24 times the median, still finite
constexpr double kMaxRateScale = 1e6;

// A finite number in [low, high]; with `zero_ok`, 0 too ("never fails").
double number_in(const json& v, const std::string& file, const std::string& where, double low, double high,
                 bool zero_ok = false) {
  const bool valid =
      v.is_number() && std::isfinite(v.get<double>()) &&
      ((v.get<double>() >= low && v.get<double>() <= high) || (zero_ok && v.get<double>() == 0));
  if (!valid)
    fail(file, where, fmt::format("must be a number in [{}, {}]{}", low, high, zero_ok ? ", or 0" : ""));
  return v.get<double>();
}

// Above 0 and at most `high`, for the lognormal sigma (any small sigma is a near-fixed repair).
double positive_up_to(const json& v, const std::string& file, const std::string& where, double high) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0 || v.get<double>() > high)
    fail(file, where, fmt::format("must be a number > 0 and <= {}", high));
  return v.get<double>();
}

template <typename E, std::size_t N>
E enum_value(const json& v, const std::array<std::pair<const char*, E>, N>& names, const std::string& file,
             const std::string& where) {
  std::string choices;
  for (const auto& [name, value] : names) {
    if (v.is_string() && v.get<std::string>() == name) return value;
    choices += choices.empty() ? name : fmt::format(", {}", name);
  }
  fail(file, where, fmt::format("expected one of {}", choices));
}

void read_component(const json& entry, ComponentFailures& c, const std::string& file,
                    const std::string& where) {
  if (!entry.is_object()) fail(file, where, "expected an object");
  static constexpr std::array<std::pair<const char*, LifeDistribution>, 2> kLife{
      {{"exponential", LifeDistribution::exponential}, {"weibull", LifeDistribution::weibull}}};
  static constexpr std::array<std::pair<const char*, RepairDistribution>, 3> kRepair{
      {{"fixed", RepairDistribution::fixed},
       {"exponential", RepairDistribution::exponential},
       {"lognormal", RepairDistribution::lognormal}}};
  for (const auto& [key, value] : entry.items()) {
    const std::string at = where + "." + key;
    if (key == "mtbf_hours")
      c.mtbf_hours = number_in(value, file, at, kMinMtbfHours, kMaxHours, true);
    else if (key == "life")
      c.life = enum_value(value, kLife, file, at);
    else if (key == "weibull_shape")
      c.weibull_shape = number_in(value, file, at, kMinWeibullShape, kMaxWeibullShape);
    else if (key == "mttr_hours")
      c.mttr_hours = number_in(value, file, at, kMinMttrHours, kMaxHours);
    else if (key == "repair")
      c.repair = enum_value(value, kRepair, file, at);
    else if (key == "lognormal_sigma")
      c.lognormal_sigma = positive_up_to(value, file, at, kMaxLognormalSigma);
    else
      fail(file, at, "unknown field");
  }
  if (c.mtbf_hours > 0 && c.mttr_hours <= 0) fail(file, where + ".mttr_hours", "needed when mtbf_hours > 0");
  // A shape for a distribution the component does not use would be silently ignored.
  if (entry.contains("weibull_shape") && c.life != LifeDistribution::weibull)
    fail(file, where + ".weibull_shape", "applies only with \"life\": \"weibull\"");
  if (entry.contains("lognormal_sigma") && c.repair != RepairDistribution::lognormal)
    fail(file, where + ".lognormal_sigma", "applies only with \"repair\": \"lognormal\"");
}

// Uniform in (0, 1], from the top 53 bits, so draws are identical on every platform.
double unit(std::mt19937_64& rng) {
  return (static_cast<double>(rng() >> 11) + 1) * 0x1.0p-53;
}

double standard_normal(std::mt19937_64& rng) {
  const double u = unit(rng), v = unit(rng);
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
}

double time_to_failure(const ComponentFailures& c, std::mt19937_64& rng) {
  const double mean = c.mtbf_hours * kHour;
  const double e = -std::log(unit(rng));  // standard exponential
  if (c.life == LifeDistribution::exponential) return mean * e;
  const double scale = mean / std::tgamma(1 + 1 / c.weibull_shape);
  return scale * std::pow(e, 1 / c.weibull_shape);
}

double repair_time(const ComponentFailures& c, std::mt19937_64& rng) {
  const double mean = c.mttr_hours * kHour;
  switch (c.repair) {
    case RepairDistribution::fixed:
      return mean;
    case RepairDistribution::exponential:
      return -mean * std::log(unit(rng));
    case RepairDistribution::lognormal: {
      const double s = c.lognormal_sigma;
      return std::exp(std::log(mean) - s * s / 2 + s * standard_normal(rng));
    }
  }
  return mean;
}

}  // namespace

FailureModel llama3_failure_model() {
  return make_llama3();
}

std::optional<FailureModel> builtin_failure_model(std::string_view name) {
  if (name == "llama3") return make_llama3();
  if (name != "llama3+midplane") return std::nullopt;
  FailureModel m = make_llama3();
  m[Component::rack] = {.mtbf_hours = kMidplaneMtbfHours,
                        .mttr_hours = kMidplaneMttrHours,
                        .repair = RepairDistribution::fixed};
  return m;
}

FailureModel read_failure_model(const std::filesystem::path& path) {
  const std::string file = path.string();
  const json doc = read_json_file(path);
  if (!doc.is_object()) fail(file, "top level", "expected an object");
  FailureModel model = make_llama3();
  if (const auto base = doc.find("base"); base != doc.end()) {
    const auto builtin = base->is_string() ? builtin_failure_model(base->get<std::string>()) : std::nullopt;
    if (*base == "none")
      model = FailureModel{};
    else if (builtin)
      model = *builtin;
    else
      fail(file, "base", "expected \"llama3\", \"llama3+midplane\" or \"none\"");
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "base" && key != "components" && key != "rate_scale") fail(file, key, "unknown field");
  }
  if (const auto parts = doc.find("components"); parts != doc.end()) {
    if (!parts->is_object()) fail(file, "components", "expected an object");
    for (const auto& [key, value] : parts->items()) {
      const auto c = parse_component(key);
      if (!c) fail(file, "components." + key, "unknown component (gpu, tray, nvswitch, nvlink, nic, rack)");
      read_component(value, model[*c], file, "components." + key);
    }
  }
  if (const auto scale = doc.find("rate_scale"); scale != doc.end()) {
    const double x = positive_up_to(*scale, file, "rate_scale", kMaxRateScale);
    for (auto& c : model.components) c.mtbf_hours /= x;
    check_failure_model(model, file + ": rate_scale");
  }
  return model;
}

void check_failure_model(const FailureModel& model, const std::string& source) {
  for (Component c : kComponents) {
    const double mtbf = model[c].mtbf_hours;
    if (mtbf != 0 && !(mtbf >= kMinMtbfHours && mtbf <= kMaxHours))
      throw InputError(fmt::format("{}: makes the {} MTBF {} h, outside [{}, {}] h", source, to_string(c),
                                   mtbf, kMinMtbfHours, kMaxHours));
  }
}

struct FailureGenerator::State {
  struct Next {
    double time;
    int kind;
    int id;
    bool operator>(const Next& o) const {
      return time != o.time ? time > o.time : kind != o.kind ? kind > o.kind : id > o.id;
    }
  };
  FailureModel model;
  std::mt19937_64 rng;
  std::priority_queue<Next, std::vector<Next>, std::greater<>> pending;
};

FailureGenerator::FailureGenerator(const FailureModel& model, const ClusterShape& shape, int switches,
                                   std::uint64_t seed)
    : state_(std::make_unique<State>()) {
  state_->model = model;
  // Offset from the workload generator's use of the same seed.
  state_->rng.seed(seed ^ 0x9e3779b97f4a7c15ULL);
  for (Component c : kComponents) {
    const ComponentFailures& f = model[c];
    if (f.mtbf_hours <= 0) continue;
    const int n = component_count(c, shape, switches);
    for (int id = 0; id < n; ++id)
      state_->pending.push({time_to_failure(f, state_->rng), static_cast<int>(c), id});
  }
}

FailureGenerator::~FailureGenerator() = default;
FailureGenerator::FailureGenerator(FailureGenerator&&) noexcept = default;
FailureGenerator& FailureGenerator::operator=(FailureGenerator&&) noexcept = default;

std::optional<FailureEvent> FailureGenerator::next() {
  if (state_->pending.empty()) return std::nullopt;
  const State::Next n = state_->pending.top();
  state_->pending.pop();
  const auto c = static_cast<Component>(n.kind);
  const ComponentFailures& f = state_->model[c];
  const double repair = repair_time(f, state_->rng);
  state_->pending.push({n.time + repair + time_to_failure(f, state_->rng), n.kind, n.id});
  return FailureEvent{n.time, c, n.id, repair};
}

FailureSource::FailureSource(FailureGenerator generator) : generator_(std::move(generator)) {}

FailureSource::FailureSource(std::span<const FailureEvent> replay) : replay_(replay) {}

std::optional<FailureEvent> FailureSource::next() {
  if (generator_) return generator_->next();
  if (replayed_ < replay_.size()) return replay_[replayed_++];
  return std::nullopt;
}

}  // namespace nvlsim
