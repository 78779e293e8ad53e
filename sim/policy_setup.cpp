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

std::vector<std::string> tray_names(const LoadedPlatform& platform, const std::string& where) {
  const std::string& expression = platform.spec.node_names;
  if (expression.empty()) return {};
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

PolicyContext policy_context(const PolicyRequest& request, const LoadedPlatform& platform,
                             const std::string& platform_name) {
  PolicyContext context{platform.spec.shape};
  follow_fabric(context, IbFabric(platform.spec.shape, platform.spec.fabric));
  context.node_names = tray_names(platform, platform_name);
  if (request.topology) context.topology = read_slurm_topology(*request.topology, context.node_names);
  return context;
}

std::vector<std::unique_ptr<PlacementPolicy>> make_policies(const PolicyRequest& request,
                                                            const LoadedPlatform& platform,
                                                            const std::string& platform_name) {
  const PolicyContext context = policy_context(request, platform, platform_name);
  std::vector<std::string> specs = request.specs;
  if (request.policy_file) {
    auto more = read_policy_file(*request.policy_file);
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
