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

struct Registration {
  std::string_view name;
  std::unique_ptr<PlacementPolicy> (*make)(const PolicySpec&, const PolicyContext&);
};

// One line per policy, in the order "all" runs them.
constexpr Registration kPolicies[] = {
    {"per-gpu", make_per_gpu_policy},
    {"block", make_block_policy},
    {"sub-block", make_sub_block_policy},
    {"tree", make_tree_policy},
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_policy(std::string_view spec, const PolicyContext& context) {
  const PolicySpec parsed = parse_policy_spec(spec);
  for (const Registration& policy : kPolicies) {
    if (policy.name == parsed.name) return policy.make(parsed, context);
  }
  throw InputError(fmt::format("policy spec '{}': unknown policy '{}' (known: {})", spec, parsed.name,
                               fmt::join(policy_names(), ", ")));
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const Registration& policy : kPolicies) names.emplace_back(policy.name);
  return names;
}

}  // namespace nvlsim
