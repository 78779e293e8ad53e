#include "sim/policy_setup.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "models/ib_fabric.hpp"
#include "models/input_error.hpp"
#include "schedulers/hostlist.hpp"
#include "schedulers/policy_registry.hpp"
#include "schedulers/slurm_topology.hpp"
#include "schedulers/switch_tree.hpp"
#include "sim/policy_file.hpp"

namespace nvlsim {

namespace {

std::vector<std::string> tray_names(const LoadedPlatform& platform, const RunOptions& options) {
  const std::string& expression = platform.spec.node_names;
  if (expression.empty()) return {};
  const std::string where = options.platform.value_or("built-in platform");
  std::vector<std::string> names;
  try {
    names = expand_hostlist(expression);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{}: property nvlsim.node_names: {}", where, e.what()));
  }
  if (static_cast<int>(names.size()) != platform.spec.shape.trays())
    throw InputError(fmt::format("{}: property nvlsim.node_names: names {} nodes, the platform has {} trays",
                                 where, names.size(), platform.spec.shape.trays()));
  return names;
}

}  // namespace

std::vector<std::unique_ptr<PlacementPolicy>> make_policies(const RunOptions& options,
                                                            const LoadedPlatform& platform) {
  PolicyContext context{platform.spec.shape};
  follow_fabric(context, IbFabric(platform.spec.shape, platform.spec.fabric));
  context.node_names = tray_names(platform, options);
  if (options.topology) context.topology = read_slurm_topology(*options.topology, context.node_names);

  std::vector<std::string> specs = options.policies;
  if (options.policy_file) {
    auto more = read_policy_file(*options.policy_file);
    specs.insert(specs.end(), more.begin(), more.end());
  }
  // By default the comparison the tool exists for: Slurm's default against whole blocks and segments.
  if (specs.empty()) specs = {"per-gpu", "block", "sub-block"};

  std::vector<std::unique_ptr<PlacementPolicy>> policies;
  for (const auto& spec : specs) {
    for (const auto& p : policies)
      if (p->name() == spec) throw InputError(fmt::format("nvlsim: --policy: {} is listed twice", spec));
    policies.push_back(make_policy(spec, context));
  }
  return policies;
}

}  // namespace nvlsim
