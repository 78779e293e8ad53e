#include "sim/policy_setup.hpp"

#include <fmt/format.h>

#include <iterator>
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
  context.slurm_version = request.slurm_version;
  if (request.topology)
    context.topology = read_slurm_topology(*request.topology, context.node_names, context.shape.trays());
  return context;
}

std::vector<std::unique_ptr<PlacementPolicy>> make_policies(const PolicyRequest& request,
                                                            const LoadedPlatform& platform,
                                                            const std::string& platform_name) {
  const PolicyContext context = policy_context(request, platform, platform_name);
  std::vector<PolicyConfig> configs;
  for (const std::string& spec : request.specs) {
    try {
      configs.push_back(parse_policy(spec));
    } catch (const InputError& e) {
      throw InputError(fmt::format("nvlsim: --policy: {}", e.what()));  // the flag, as other flags' errors
    }
  }
  if (request.policy_file) {
    std::vector<PolicyConfig> more = read_policy_file(*request.policy_file);
    configs.insert(configs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  // By default the comparison the tool exists for: Slurm's default against whole blocks and segments.
  if (configs.empty())
    for (const char* spec : {"per-gpu", "block", "sub-block"}) configs.push_back(parse_policy(spec));

  // A policy is its type and parameters, not its text: a second spelling of one is refused rather than
  // replayed twice under two names.
  std::vector<std::unique_ptr<PlacementPolicy>> policies;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (configs[j].identity() != configs[i].identity()) continue;
      if (configs[j].text == configs[i].text)
        throw InputError(fmt::format("nvlsim: --policy: {} is listed twice", configs[i].text));
      throw InputError(fmt::format("nvlsim: --policy: {} is the same policy as {} (both are {})",
                                   configs[i].text, configs[j].text, configs[i].identity()));
    }
    policies.push_back(make_policy(configs[i], context));
  }
  return policies;
}

}  // namespace nvlsim
