#pragma once
// The YAML subset Slurm's topology.yaml uses: block mappings and sequences by indentation, "- " items
// that open a mapping, flow sequences of scalars ([18, 36]), plain or quoted scalars, # comments.
// Anchors, multi-line scalars, flow mappings and documents markers are not supported.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nvlsim {

struct YamlNode {
  enum class Kind { kScalar, kMapping, kSequence };
  Kind kind = Kind::kScalar;
  int line = 0;      // 1-based line where the node starts
  int key_line = 0;  // for a mapping value: the line of its key
  std::string scalar;
  std::vector<std::pair<std::string, YamlNode>> mapping;  // in file order
  std::vector<YamlNode> sequence;
};

// Throws InputError "FILE:LINE: what" for text outside the subset or bad indentation.
YamlNode parse_yaml(std::string_view text, std::string_view file);

}  // namespace nvlsim
