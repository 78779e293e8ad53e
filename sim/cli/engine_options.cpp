#include "sim/cli/engine_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "sim/cli/number_option.hpp"

namespace nvlsim {

namespace {

// SimGrid's config parser aborts without a ':' (name:value).
void check_cfg(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0)
    fail("--cfg", fmt::format("expected NAME:VALUE (SimGrid configuration), got \"{}\"", text));
}

// SimGrid's log control string is CATEGORY.KEY:VALUE; it aborts on any other key, and on a bad threshold
// it names no flag, so both are checked here.
void check_log(const std::string& text) {
  static constexpr std::array<std::string_view, 8> kKeys = {"thres", "threshold", "add", "additivity",
                                                            "app",   "appender",  "fmt", "layout"};
  static constexpr std::array<std::string_view, 7> kPriorities = {"trace",   "debug", "verbose", "info",
                                                                  "warning", "error", "critical"};
  const auto colon = text.find(':');
  const auto dot = text.rfind('.', colon);
  const std::string_view key = colon == std::string::npos || dot == std::string::npos || dot == 0
                                   ? std::string_view()
                                   : std::string_view(text).substr(dot + 1, colon - dot - 1);
  if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
    fail("--log", fmt::format("expected CATEGORY.KEY:VALUE with KEY thres, add, app or fmt (SimGrid "
                              "logging), got \"{}\"",
                              text));
  const std::string_view value = std::string_view(text).substr(colon + 1);
  if ((key == "thres" || key == "threshold") &&
      std::find(kPriorities.begin(), kPriorities.end(), value) == kPriorities.end())
    fail("--log", fmt::format("threshold must be trace, debug, verbose, info, warning, error or critical, "
                              "got \"{}\"",
                              value));
}

}  // namespace

void add_engine_options(CLI::App& command, std::vector<std::string>& args) {
  const std::string group = "SimGrid (passed to its engine; see docs/model.md)";
  command
      .add_option_function<std::vector<std::string>>(
          "--cfg",
          [&args](const std::vector<std::string>& values) {
            for (const auto& v : values) {
              check_cfg(v);
              args.push_back("--cfg=" + v);
            }
          },
          "SimGrid configuration, e.g. --cfg=network/model:LV08; after nvlsim's own\n"
          "settings, so it overrides them; repeatable")
      ->type_name("NAME:VALUE")
      ->allow_extra_args(false)
      ->take_all()
      ->group(group);
  command
      .add_option_function<std::vector<std::string>>(
          "--log",
          [&args](const std::vector<std::string>& values) {
            for (const auto& v : values) {
              check_log(v);
              args.push_back("--log=" + v);
            }
          },
          "SimGrid logging, e.g. --log=root.thres:info (default: root.thres:warning);\n"
          "repeatable")
      ->type_name("CATEGORY.KEY:VALUE")
      ->allow_extra_args(false)
      ->take_all()
      ->group(group);
}

}  // namespace nvlsim
