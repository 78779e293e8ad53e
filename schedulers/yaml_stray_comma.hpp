#pragma once
// A guard for yaml-cpp 0.7 (Debian 12), which loops forever on a ',' outside any [...] or {...} where a
// value could start: a document that is ",", "- a\n,", "[a],", "\"x\",", "&t,", "!t,". Found by fuzzing
// topology.yaml.

#include <optional>
#include <string_view>

namespace nvlsim {

struct TextPosition {
  int line = 0;    // 1-based
  int column = 0;  // 1-based
};

// The first such comma, following quotes, comments, anchors, tags and flow collections as YAML does. Block
// scalars
// (| and >) are not followed, so a line of one that starts with ',' is reported too; no topology value is
// such a line.
std::optional<TextPosition> find_stray_comma(std::string_view text);

// The first control character YAML does not allow (any below 0x20 but tab, LF and CR, and DEL): yaml-cpp
// 0.7 grows without bound on "\0,y".
std::optional<TextPosition> find_control_character(std::string_view text);

}  // namespace nvlsim
