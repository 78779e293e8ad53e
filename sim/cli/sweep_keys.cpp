#include "sim/cli/sweep_keys.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <string_view>

#include "models/failure_model.hpp"
#include "models/input_error.hpp"
#include "sim/cli/cli_app.hpp"
#include "sim/cli/shipped_names.hpp"

namespace nvlsim {

namespace {

constexpr std::string_view kMixPrefix = "mix.";
constexpr std::string_view kPlatformPrefix = "platform.";

struct Command {
  std::string_view prefix;
  std::vector<std::string_view> set_by_sweep;  // options each run gets from the sweep, not the grid
};

// The options of `command`, "--help" aside, as grid keys: a flag takes no value (CLI11 expects none), and
// the options whose metavar is FILE or SOURCE name the input files a run reads.
void add_keys(const CLI::App& command, const Command& c, std::vector<GridKey>& keys) {
  for (const CLI::Option* opt : command.get_options()) {
    if (opt->get_lnames().empty()) continue;
    const std::string& name = opt->get_lnames().front();
    if (name == "help" || std::ranges::find(c.set_by_sweep, name) != c.set_by_sweep.end()) continue;
    const std::string type = opt->get_type_name();
    keys.push_back(
        {std::string(c.prefix) + name, opt->get_expected_max() != 0, type == "FILE" || type == "SOURCE"});
  }
}

// The command line of one setting given alone, with what its command requires besides.
std::vector<std::string> command_line(const GridKey& key, const std::string& value) {
  std::vector<std::string> args;
  std::string name = key.name;
  if (name.starts_with(kMixPrefix)) {
    name.erase(0, kMixPrefix.size());
    args = {"workload", "mix", "-o", "x.swf"};
    if (name != "gpus") args.push_back("--gpus=1");
    if (name != "days" && name != "jobs") args.push_back("--days=1");
  } else if (name.starts_with(kPlatformPrefix)) {
    name.erase(0, kPlatformPrefix.size());
    args = {"platform", "-o", "x.xml"};
  } else {
    args = {"run"};
    if (name == "shards-per-gpu" || name == "sharing-interference") args.push_back("--gpu-sharing=shard");
  }
  args.push_back(key.takes_value ? fmt::format("--{}={}", name, value) : "--" + name);
  return args;
}

// "nvlsim: --flag: what is wrong" without what the grid's error names itself.
std::string what_is_wrong(std::string message) {
  for (const std::string_view prefix : {"nvlsim: ", "--"}) {
    if (!message.starts_with(prefix)) continue;
    message.erase(0, prefix == "--" ? message.find(": ") + 2 : prefix.size());
  }
  return message;
}

}  // namespace

GridKeys sweep_grid_keys() {
  CLI::App app;
  CliOptions o;
  CLI::App* run = add_run_command(app, o.run);
  CLI::App* platform = add_platform_command(app, o.platform);
  const WorkloadCommands workload = add_workload_command(app, o.mix, o.convert);
  GridKeys keys;
  add_keys(*run, {"", {"seed", "policy", "out", "parallel", "quiet"}}, keys.keys);
  add_keys(*platform, {kPlatformPrefix, {"output", "write-topology"}}, keys.keys);
  add_keys(*workload.mix, {kMixPrefix, {"seed", "output"}}, keys.keys);
  keys.check = [list = keys.keys](const std::string& key, const std::string& value) {
    try {
      parse_cli(command_line(*std::ranges::find(list, key, &GridKey::name), value));
    } catch (const InputError& e) {
      throw InputError(what_is_wrong(e.what()));
    }
  };
  keys.builtin = [](const std::string& key, const std::string& value, const std::filesystem::path& beside) {
    // A built-in model's name is never a file (sim/failure_setup.hpp).
    if (key == "failures") return builtin_failure_model(value).has_value();
    std::error_code ec;
    if (std::filesystem::exists(beside, ec)) return false;
    return (key == "platform" && builtin_platform_racks(value)) || (key == "trace" && is_shipped_mix(value));
  };
  return keys;
}

}  // namespace nvlsim
