#include "sim/cli/platform_command.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "models/ib_fabric.hpp"
#include "models/input_error.hpp"
#include "platforms/platform_properties.hpp"
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

const SystemFacts& chosen_system(const std::string& name) {
  try {
    return system_named(name);
  } catch (const InputError& e) {
    fail("--system", e.what());
  }
}

// `racks` racks of the system, refused when they make no whole number of domains or more than a platform
// may hold (platform_properties.hpp), so that every file written loads.
PlatformSpec racks_of(const SystemFacts& system, int racks) {
  const int per_domain = system.racks_per_domain.value;
  if (racks % per_domain != 0)
    fail("--racks", fmt::format("{} joins {} racks into one NVLink domain: must be a multiple of {}, got {}",
                                system.name, per_domain, per_domain, racks));
  PlatformSpec spec = system_platform(system, racks);
  const auto& s = spec.shape;
  if (s.trays() > kMaxPlatformTrays || s.gpus() > kMaxPlatformGpus)
    fail("--racks",
         fmt::format("{} racks of {} make {} trays and {} GPUs, more than a platform may have "
                     "({} trays, {} GPUs)",
                     racks, system.name, s.trays(), s.gpus(), kMaxPlatformTrays, kMaxPlatformGpus));
  return spec;
}

void apply(const FabricFlags& given, FabricParams& f) {
  if (given.nvlink_links_per_gpu) f.nvlink_links_per_gpu = *given.nvlink_links_per_gpu;
  if (given.nvlink_link_bw) f.nvlink_link_bw = *given.nvlink_link_bw;
  if (given.nvlink_latency) f.nvlink_latency = *given.nvlink_latency;
  if (given.nic_bw) f.nic_bw = *given.nic_bw;
  if (given.ib_latency) f.ib_latency = *given.ib_latency;
  if (given.ib_oversubscription) f.ib_oversubscription = *given.ib_oversubscription;
  if (given.ib_switch_radix) f.ib_switch_radix = *given.ib_switch_radix;
  if (given.nvlink_sharp) f.nvlink_sharp = *given.nvlink_sharp;
  if (given.nvlink_efficiency) f.nvlink_efficiency = *given.nvlink_efficiency;
  if (given.nvls_efficiency) f.nvls_efficiency = *given.nvls_efficiency;
  if (given.nic_efficiency) f.nic_efficiency = *given.nic_efficiency;
  if (given.nccl_nics_per_domain) f.nccl_nics_per_domain = *given.nccl_nics_per_domain;
  if (given.inter_zone_bw) f.inter_zone_bw = *given.inter_zone_bw;
}

}  // namespace

CLI::App* add_platform_command(CLI::App& app, PlatformOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "platform",
      "write the platform file of N racks of a system, and/or the Slurm topology.conf of its\n"
      "leaf switches (systems and their figures: docs/systems.md; platform: docs/model.md)");
  cmd->add_option("--system", o.system,
                  "the system (default: " + std::string(default_system().name) + "), one of\n" +
                      system_names() + ";\nthe flags below replace its figures")
      ->type_name("NAME");
  add_number(*cmd, "--racks", o.racks, 1, 4096, "N",
             "racks: one NVLink domain each, two per domain on gb200-nvl36x2 (default: 8)");
  add_number(*cmd, "--nvlink-links", o.fabric.nvlink_links_per_gpu, 1, 1024, "N",
             "NVLinks per GPU, one per NVSwitch chip (gb200-nvl72: 18)");
  add_number(*cmd, "--nvlink-link-bw", o.fabric.nvlink_link_bw, 1.0, 1e15, "B",
             "bytes/s each way per NVLink (gb200-nvl72: 50e9)");
  add_number(*cmd, "--nvlink-latency", o.fabric.nvlink_latency, 0.0, 1.0, "S", "s per NVLink port link (0)");
  add_number(*cmd, "--nic-bw", o.fabric.nic_bw, 1.0, 1e15, "B",
             "bytes/s each way per InfiniBand NIC, one per GPU (gb200-nvl72: 50e9)");
  add_number(*cmd, "--inter-zone-bw", o.fabric.inter_zone_bw, 1.0, 1e15, "B",
             "bytes/s each way per GPU of a zone over the midplane, on systems with zones\n"
             "(vr-ultra-nvl576: 1.8e12; a zone's midplane link carries its GPUs' sum)");
  add_number(*cmd, "--ib-latency", o.fabric.ib_latency, 0.0, 1.0, "S", "s per InfiniBand link (0)");
  add_number(*cmd, "--ib-oversubscription", o.fabric.ib_oversubscription, 1.0, 1e6, "R",
             "leaf uplinks carry the leaf's NICs x NIC bandwidth / R (1)");
  add_number(*cmd, "--ib-switch-radix", o.fabric.ib_switch_radix, 4, 4096, "N",
             "ports per InfiniBand switch; a leaf serves N/2 trays per rail (64)");
  cmd->add_flag_callback(
      "--nvlink-sharp", [&o] { o.fabric.nvlink_sharp = true; },
      "NCCL may run a domain's all-reduce in the switches (NVLS; the default)");
  cmd->add_flag_callback(
      "--no-nvlink-sharp", [&o] { o.fabric.nvlink_sharp = false; },
      "no NVLS: all-reduce runs as Ring or Tree (NCCL_NVLS_ENABLE=0)");
  add_number(*cmd, "--nvlink-efficiency", o.fabric.nvlink_efficiency, 0.01, 1.0, "E",
             "share of NVLink line rate NCCL's Ring and all-to-all reach (0.80)");
  add_number(*cmd, "--nvls-efficiency", o.fabric.nvls_efficiency, 0.01, 1.0, "E",
             "NVLS bus bandwidth over NVLink line rate (0.94)");
  add_number(*cmd, "--nic-efficiency", o.fabric.nic_efficiency, 0.01, 1.0, "E",
             "share of NIC line rate NCCL reaches (0.96)");
  add_number(*cmd, "--nccl-nics", o.fabric.nccl_nics_per_domain, 1, 65536, "K",
             "NICs per domain NCCL's all-reduce uses between domains (8; 16 from NCCL 2.27.3)");
  add_number(*cmd, "--partial-operation", o.partial_operation, 0, 1, "0|1",
             "1: a failed tray is isolated and its domain stays a block of the rest\n"
             "(NVLink 6; default: the system's, 1 on vr-*, docs/failures.md)");
  cmd->add_option("--node-names", o.node_names,
                  "Slurm node name of each tray in order, e.g. \"gb[01-08]n[01-18]\", for\n"
                  "--topology files (default: trays map to nodes by order of appearance;\n"
                  "--write-topology then names them tray-0, tray-1, ...)")
      ->type_name("HOSTLIST");
  cmd->add_option("-o,--output", o.output, "the platform file to write")->type_name("FILE");
  cmd->add_option("--write-topology", o.topology_output,
                  "also (or only) write the Slurm topology.conf of the fabric's leaf switches")
      ->type_name("FILE");
  cmd->add_option("--write-block-topology", o.block_topology_output,
                  "also (or only) write the Slurm topology.conf (topology/block, Slurm 23.11+) of the\n"
                  "system's NVLink domains, one block each, as `block` and `sub-block` see them")
      ->type_name("FILE");
  cmd->final_callback([&o] {
    if (o.output.empty() && o.topology_output.empty() && o.block_topology_output.empty())
      fail("platform", "-o FILE, --write-topology FILE or --write-block-topology FILE is required");
  });
  return cmd;
}

int platform_command(const PlatformOptions& options) {
  auto spec = racks_of(chosen_system(options.system), options.racks);
  if (options.fabric.inter_zone_bw && spec.shape.zones_per_domain == 1)
    fail("--inter-zone-bw", fmt::format("{} has one zone per NVLink domain", spec.system));
  apply(options.fabric, spec.fabric);
  if (options.partial_operation) spec.partial_operation = *options.partial_operation != 0;
  spec.node_names = options.node_names;
  if (!options.topology_output.empty()) {
    // The same tree a run's `tree` policy builds from this platform (sim/policy_setup.cpp).
    PolicyContext context{spec.shape};
    follow_fabric(context, IbFabric(spec.shape, spec.fabric));
    const auto names = node_names(spec);
    write_file(options.topology_output, topology_conf_text(make_switch_tree(context), names));
  }
  if (!options.block_topology_output.empty()) {
    // The layout a run's block policies build from this platform when given no topology.
    const PolicyContext context{spec.shape};
    write_file(options.block_topology_output,
               block_topology_conf_text(make_block_layout(context), node_names(spec)));
  }
  if (!options.output.empty()) write_file(options.output, platform_xml(spec));
  return 0;
}

}  // namespace nvlsim
