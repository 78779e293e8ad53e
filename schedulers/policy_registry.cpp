#include "schedulers/policy_registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/input_error.hpp"
#include "schedulers/block_policy.hpp"
#include "schedulers/per_gpu_policy.hpp"
#include "schedulers/sub_block_policy.hpp"
#include "schedulers/tree_policy.hpp"

namespace nvlsim {
namespace {

// One line per policy, in the order "all" runs them.
constexpr const PolicyType* kPolicies[] = {
    &kPerGpuPolicy,
    &kBlockPolicy,
    &kSubBlockPolicy,
    &kTreePolicy,
};

}  // namespace

std::span<const PolicyType* const> policy_types() {
  return kPolicies;
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const PolicyType* policy : kPolicies) names.emplace_back(policy->name);
  return names;
}

const PolicyType& find_policy_type(std::string_view name, std::string_view where) {
  for (const PolicyType* policy : kPolicies) {
    if (policy->name == name) return *policy;
  }
  throw InputError(
      fmt::format("{}: unknown policy '{}' (known: {})", where, name, fmt::join(policy_names(), ", ")));
}

PolicyConfig parse_policy(std::string_view spec) {
  const PolicySpec parsed = parse_policy_spec(spec);
  const std::string where = fmt::format("policy spec '{}'", spec);
  const PolicyType& type = find_policy_type(parsed.name, where);
  PolicyConfig config{parsed.text, &type, ParamValues(type.params)};
  for (const PolicyParam& param : parsed.params) {
    const ParamDecl& decl = find_decl(type.params, param.key, type.name, where);
    config.params.set(decl, param_from_text(decl, param.value, fmt::format("{}: {}", where, param.key)),
                      where);
  }
  return config;
}

std::unique_ptr<PlacementPolicy> make_policy(const PolicyConfig& config, const PolicyContext& context) {
  return config.type->make(config, context);
}

std::unique_ptr<PlacementPolicy> make_policy(std::string_view spec, const PolicyContext& context) {
  return make_policy(parse_policy(spec), context);
}

std::string policy_listing() {
  std::string out;
  for (const PolicyType* policy : kPolicies) {
    out += fmt::format("  {}: {}{}\n", policy->name, policy->summary,
                       policy->params.empty() ? "; no parameters" : "");
    for (const ParamDecl& p : policy->params)
      out += fmt::format("    {}={} (default: {}) {}\n", p.key, p.value_name, p.default_text, p.help);
  }
  out.pop_back();  // the caller ends the text
  return out;
}

}  // namespace nvlsim
