#include "sim/cli/cli_app.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "sim/cli/number_option.hpp"

namespace nvlsim {

namespace {

// "nvlsim workload mix" for the subcommand mix.
std::string command_path(const CLI::App* a) {
  std::string path = a->get_name();
  for (const CLI::App* p = a->get_parent(); p != nullptr; p = p->get_parent())
    path = p->get_name() + " " + path;
  return path;
}

// Refuses what the command does not know, and a second value for an option that takes one: it would
// silently replace the first. Repeatable options take all their values (MultiOptionPolicy::TakeAll).
void check_arguments(const CLI::App* a) {
  const std::string see = fmt::format("see {} --help", command_path(a));
  if (const auto extra = a->remaining(); !extra.empty()) {
    const std::string& arg = extra.front();
    if (!arg.starts_with("-"))
      fail(arg, fmt::format("{} ({})", a->get_parent() ? "unexpected argument" : "unknown command", see));
    const std::string name = arg.substr(0, arg.find('='));
    fail(name.size() > 1 ? name : arg, fmt::format("unknown option ({})", see));
  }
  for (const CLI::Option* opt : a->get_options()) {
    if (opt->count() > 1 && opt->get_multi_option_policy() != CLI::MultiOptionPolicy::TakeAll)
      fail(opt->get_name(), "given twice");
    // `--trace ""` (an unset variable, quoted) would reach the reader as a file without a name.
    for (const std::string& value : opt->results())
      if (value.empty()) fail(opt->get_name(), "needs a value, got an empty one");
  }
}

// CLI11's own messages in nvlsim's form. The two it words unlike "FLAG: what is wrong" are reworded;
// tests/unit/test_cli_flags.cpp holds them to it.
InputError input_error(const CLI::ParseError& e) {
  const std::string what = e.what();
  constexpr std::string_view kOverride = " was given a disallowed flag override";
  if (what.ends_with(kOverride)) {
    const std::string name = what.substr(0, what.size() - kOverride.size());
    return InputError(fmt::format("nvlsim: {}{}: takes no value", name.starts_with("-") ? "" : "--", name));
  }
  if (const auto colon = what.find(": "); colon != std::string::npos && what.ends_with(" missing"))
    return InputError(fmt::format("nvlsim: {}: needs a value", what.substr(0, colon)));
  return InputError("nvlsim: " + what);
}

// CLI11 reads `--out= --quiet` as `--out --quiet`: the empty value takes the next argument (an unset
// variable in `--out=$DIR` made a folder named --quiet and dropped the flag). An empty value given apart
// (`--trace ""`) is refused by check_arguments.
void refuse_empty_values(std::span<const std::string> args) {
  for (const std::string& arg : args)
    if (arg.size() > 3 && arg.starts_with("--") && arg.find('=') == arg.size() - 1)
      fail(arg.substr(0, arg.size() - 1), "needs a value, got an empty one");
}

// `nvlsim [options]` means `nvlsim run [options]`; top-level --help and --version stay top-level.
std::vector<std::string> with_command(std::span<const std::string> args) {
  std::vector<std::string> out(args.begin(), args.end());
  const bool top_level = !out.empty() && (out[0] == "--help" || out[0] == "-h" || out[0] == "--version");
  if (!top_level && (out.empty() || out[0].starts_with("-"))) out.insert(out.begin(), "run");
  return out;
}

}  // namespace

CliOptions parse_cli(std::span<const std::string> args) {
  CliOptions o;
  CLI::App app(fmt::format("nvlsim {} - GB200 NVL72 cluster scheduling simulator (SimGrid)", NVLSIM_VERSION),
               "nvlsim");
  app.get_formatter()->column_width(32);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // see check_arguments
  app.option_defaults()->disable_flag_override();                                // a flag takes no value
  app.set_version_flag("--version", NVLSIM_VERSION, "print the version");
  app.require_subcommand(0, 1);
  app.footer(
      "`nvlsim [options]` is `nvlsim run [options]`; `nvlsim COMMAND --help` shows a command's options.\n"
      "Options take `--flag value` or `--flag=value`.");
  CLI::App* run = add_run_command(app, o.run);
  CLI::App* platform = add_platform_command(app, o.platform);
  const WorkloadCommands workload = add_workload_command(app, o.mix, o.convert);
  CLI::App* probe = add_probe_command(app, o.probe);
  const SweepCommands sweep = add_sweep_command(app, o.sweep);
  const std::vector<CLI::App*> apps = {&app,          run,
                                       platform,      workload.mix->get_parent(),
                                       workload.mix,  workload.convert,
                                       probe,         sweep.sweep,
                                       sweep.collect, sweep.run_one};
  for (CLI::App* a : apps) {
    a->allow_extras();  // reported by check_arguments, naming the option
    a->parse_complete_callback([a] { check_arguments(a); });
  }
  workload.mix->get_parent()->require_subcommand(0, 1);
  sweep.sweep->require_subcommand(0, 1);

  refuse_empty_values(args);
  std::vector<std::string> reversed = with_command(args);
  std::reverse(reversed.begin(), reversed.end());  // as CLI11 takes them
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    o.command = Command::help;
    o.text = app.help();  // the help of the command asked about
    return o;
  } catch (const CLI::CallForVersion& e) {
    o.command = Command::version;
    o.text = std::string(e.what()) + "\n";
    return o;
  } catch (const CLI::ParseError& e) {
    throw input_error(e);
  }
  if (platform->parsed()) o.command = Command::platform;
  if (workload.mix->parsed()) o.command = Command::workload_mix;
  if (workload.convert->parsed()) o.command = Command::workload_convert;
  if (probe->parsed()) o.command = Command::probe;
  if (sweep.sweep->parsed()) o.command = Command::sweep;
  if (sweep.collect->parsed()) o.command = Command::sweep_collect;
  if (sweep.run_one->parsed()) o.command = Command::sweep_run_one;
  return o;
}

}  // namespace nvlsim
