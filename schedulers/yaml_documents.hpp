#pragma once
// YAML documents read by yaml-cpp 0.7 (Debian 12), which loops or grows without bound on some malformed
// input (found by fuzzing topology.yaml). Known shapes get a message naming line and column
// (yaml_stray_comma.hpp); any other input is first read in a child process that is stopped past a time
// and memory bound, so a file nvlsim is given can never hang it.

#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nvlsim {

// What is wrong with the text; `line` is 1-based, 0 when no line can be named.
class YamlSyntaxError : public std::runtime_error {
 public:
  YamlSyntaxError(int line, const std::string& what) : std::runtime_error(what), line_(line) {}
  int line() const { return line_; }

 private:
  int line_;
};

// Every document of `text`. Throws YamlSyntaxError for a syntax error, a character or comma yaml-cpp 0.7
// cannot read, or text it does not finish reading within 10 s + 2 s per MiB and 1 GiB + 128 bytes per
// byte of text.
std::vector<YAML::Node> load_yaml_documents(std::string_view text);

}  // namespace nvlsim
