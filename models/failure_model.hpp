#pragma once
// The failure model: for each kind of component, a time-to-failure distribution from an MTBF and a
// repair-time distribution from an MTTR (docs/failures.md). Defaults follow Llama 3's root causes.

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/failure_event.hpp"

namespace nvlsim {

enum class LifeDistribution { exponential, weibull };
enum class RepairDistribution { fixed, exponential, lognormal };

struct ComponentFailures {
  double mtbf_hours = 0;  // mean time between failures of one component; 0 = never fails
  LifeDistribution life = LifeDistribution::exponential;
  double weibull_shape = 1;  // k; the scale follows so the mean is the MTBF
  double mttr_hours = 0;     // mean repair time
  RepairDistribution repair = RepairDistribution::exponential;
  double lognormal_sigma = 1;  // sigma of log(repair time); mu follows so the mean is the MTTR
};

struct FailureModel {
  std::array<ComponentFailures, std::size(kComponents)> components{};

  ComponentFailures& operator[](Component c) { return components[static_cast<std::size_t>(c)]; }
  const ComponentFailures& operator[](Component c) const { return components[static_cast<std::size_t>(c)]; }
};

// Per-component rates from the 419 interruptions of Llama 3's 54-day run on 16,384 H100 GPUs
// (arXiv 2407.21783, Table 5), mapped onto NVL72 parts; repairs of 48 h, exponential. docs/failures.md
// gives the mapping.
FailureModel llama3_failure_model();

// Rubin Ultra NVL576's midplane (seed nvl72-to-nvl576-evolution §10.1, DOMAIN.md §4): a fault in the
// rack's PCB midplane sends the whole rack back to the factory. The seed estimates a system MTBF of
// 5,000-10,000 h and a return of 2-4 weeks; the model takes the middle of each, 8,000 h and a fixed
// 504 h (3 weeks), per physical rack.
inline constexpr double kMidplaneMtbfHours = 8000;
inline constexpr double kMidplaneMttrHours = 504;

// The built-in models by name: "llama3", and "llama3+midplane" (llama3 with whole-rack midplane faults
// added); nullopt for any other name. `--failures NAME` and a model file's "base" take these names.
std::optional<FailureModel> builtin_failure_model(std::string_view name);

// Reads FILE.json: {"base": "llama3"|"llama3+midplane"|"none", "rate_scale": x, "components": {"gpu":
// {"mtbf_hours": ..., "life": "exponential"|"weibull", "weibull_shape": k, "mttr_hours": ..., "repair":
// "fixed"|"exponential"|"lognormal", "lognormal_sigma": s}, ...}}. Listed fields override the base. Every
// value must be finite and inside the bounds docs/inputs.md lists (MTBF 0 or in [1, 1e9] h, MTTR in [0.01,
// 1e9] h, Weibull shape in [0.1, 10], lognormal sigma in (0, 3], rate_scale in (0, 1e6]). Throws InputError
// naming the file and the field.
FailureModel read_failure_model(const std::filesystem::path& path);

// Checks every MTBF after a rate scale divided it (a file's rate_scale, --failure-rate-scale): 0 or in
// [1, 1e9] h. Throws InputError "SOURCE: makes the gpu MTBF 0.5 h, outside [1, 1e+09] h".
void check_failure_model(const FailureModel& model, const std::string& source);

// Failures in time order. Each component alternates: up for a drawn time to failure, then down for a
// drawn repair time (a renewal process). One seeded stream, drawn in event order, so a seed fixes them all.
class FailureGenerator {
 public:
  FailureGenerator(const FailureModel& model, const ClusterShape& shape, int switches, std::uint64_t seed);
  ~FailureGenerator();
  FailureGenerator(FailureGenerator&&) noexcept;
  FailureGenerator& operator=(FailureGenerator&&) noexcept;

  std::optional<FailureEvent> next();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The failures of a run: a model's stream or a replayed list.
class FailureSource {
 public:
  FailureSource() = default;  // no failures
  explicit FailureSource(FailureGenerator generator);
  explicit FailureSource(std::span<const FailureEvent> replay);  // sorted by time; must outlive this

  std::optional<FailureEvent> next();

 private:
  std::optional<FailureGenerator> generator_;
  std::span<const FailureEvent> replay_;
  std::size_t replayed_ = 0;
};

}  // namespace nvlsim
