#include "sim/platform_command.hpp"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ib_fabric.hpp"
#include "models/input_error.hpp"
#include "platforms/platform_writer.hpp"
#include "schedulers/hostlist.hpp"
#include "schedulers/switch_tree.hpp"
#include "schedulers/topology_conf_writer.hpp"

namespace nvlsim {

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) throw InputError(fmt::format("{}: cannot write", path));
  out << text;
  if (!out.flush()) throw InputError(fmt::format("{}: write failed", path));
}

// The platform's node names, or tray-0, tray-1, ... when it has none (Slurm needs a name per node).
std::vector<std::string> node_names(const PlatformSpec& spec) {
  if (spec.node_names.empty()) {
    std::vector<std::string> names;
    for (int tray = 0; tray < spec.shape.trays(); ++tray) names.push_back(fmt::format("tray-{}", tray));
    return names;
  }
  std::vector<std::string> names;
  try {
    names = expand_hostlist(spec.node_names);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("nvlsim platform: --node-names: {}", e.what()));
  }
  if (static_cast<int>(names.size()) != spec.shape.trays())
    throw InputError(fmt::format("nvlsim platform: --node-names names {} nodes, the platform has {} trays",
                                 names.size(), spec.shape.trays()));
  return names;
}

}  // namespace

int platform_command(const PlatformOptions& options) {
  auto spec = nvl72_platform(options.racks);
  spec.fabric = options.fabric;
  spec.node_names = options.node_names;
  if (!options.topology_output.empty()) {
    // The same tree a run's `tree` policy builds from this platform (sim/policy_setup.cpp).
    PolicyContext context{spec.shape};
    follow_fabric(context, IbFabric(spec.shape, spec.fabric));
    const auto names = node_names(spec);
    write_file(options.topology_output, topology_conf_text(make_switch_tree(context), names));
  }
  if (!options.output.empty()) write_file(options.output, platform_xml(spec));
  return 0;
}

}  // namespace nvlsim
