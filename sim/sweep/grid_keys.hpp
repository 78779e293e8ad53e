#pragma once
// The settings a sweep grid may name, as the command line defines them: sim/cli derives them from its
// CLI11 definitions (sim/cli/sweep_keys.hpp), so that the grid knows every flag `nvlsim run`,
// `nvlsim platform` and `nvlsim workload mix` know, and nothing else.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace nvlsim {

struct GridKey {
  std::string name;         // "comm-fraction", "mix.load", "platform.racks": the flag without "--"
  bool takes_value = true;  // false for a flag, which the grid sets with true or false
  bool names_file = false;  // a file whose contents are part of the run (trace, platform, ...)
};

struct GridKeys {
  std::vector<GridKey> keys;  // in the order of --help
  // Throws InputError "what is wrong" when the command line would refuse `value` for `key`.
  std::function<void(const std::string& key, const std::string& value)> check;
  // True when `value` of a file key means no file: a built-in source (llama3), or a shipped name (nvl72x8,
  // mix.swf) when there is no file `beside` (the value's file beside the grid).
  std::function<bool(const std::string& key, const std::string& value, const std::filesystem::path& beside)>
      builtin;

  const GridKey* find(const std::string& name) const;
  std::string names() const;  // "a, b, c" for error messages
};

}  // namespace nvlsim
