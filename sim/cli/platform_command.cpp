#include "sim/cli/platform_command.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "models/ib_fabric.hpp"
#include "models/input_error.hpp"
#include "platforms/platform_writer.hpp"
#include "schedulers/hostlist.hpp"
#include "schedulers/switch_tree.hpp"
#include "schedulers/topology_conf_writer.hpp"
#include "sim/cli/number_option.hpp"
#include "sim/whole_file.hpp"

namespace nvlsim {

namespace {

void write_file(const std::string& path, const std::string& text) {
  write_whole_file(path, [&](std::ostream& out) { out << text; });
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

CLI::App* add_platform_command(CLI::App& app, PlatformOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "platform",
      "write an NVL72 platform file with N racks, and/or the Slurm topology.conf of its leaf\n"
      "switches (defaults: GB200 NVL72 and ConnectX-7, see docs/model.md)");
  add_number(*cmd, "--racks", o.racks, 1, 4096, "N", "NVL72 racks, one NVLink domain each (default: 8)");
  add_number(*cmd, "--nvlink-links", o.fabric.nvlink_links_per_gpu, 1, 1024, "N",
             "NVLinks per GPU, one per NVSwitch chip (18)");
  add_number(*cmd, "--nvlink-link-bw", o.fabric.nvlink_link_bw, 1.0, 1e15, "B",
             "bytes/s each way per NVLink (50e9)");
  add_number(*cmd, "--nvlink-latency", o.fabric.nvlink_latency, 0.0, 1.0, "S", "s per NVLink port link (0)");
  add_number(*cmd, "--nic-bw", o.fabric.nic_bw, 1.0, 1e15, "B", "bytes/s each way per InfiniBand NIC (50e9)");
  add_number(*cmd, "--ib-latency", o.fabric.ib_latency, 0.0, 1.0, "S", "s per InfiniBand link (0)");
  add_number(*cmd, "--ib-oversubscription", o.fabric.ib_oversubscription, 1.0, 1e6, "R",
             "leaf uplinks carry the leaf's NICs x NIC bandwidth / R (1)");
  add_number(*cmd, "--ib-switch-radix", o.fabric.ib_switch_radix, 4, 4096, "N",
             "ports per InfiniBand switch; a leaf serves N/2 trays per rail (64)");
  cmd->add_flag("--nvlink-sharp", o.fabric.nvlink_sharp,
                "NVSwitches reduce in place (NVLink SHARP) for all-reduce");
  cmd->add_option("--node-names", o.node_names,
                  "Slurm node name of each tray in order, e.g. \"gb[01-08]n[01-18]\", for\n"
                  "--topology files (default: trays map to nodes by order of appearance;\n"
                  "--write-topology then names them tray-0, tray-1, ...)")
      ->type_name("HOSTLIST");
  cmd->add_option("-o,--output", o.output, "the platform file to write")->type_name("FILE");
  cmd->add_option("--write-topology", o.topology_output,
                  "also (or only) write the Slurm topology.conf of the fabric's leaf switches")
      ->type_name("FILE");
  cmd->final_callback([&o] {
    if (o.output.empty() && o.topology_output.empty())
      fail("platform", "-o FILE or --write-topology FILE is required");
  });
  return cmd;
}

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
