#pragma once
// --policy-file FILE.json: policy specs written as JSON, rule tables included.
//
//   {"policies": ["per-gpu",
//                 {"policy": "block", "min_block_nodes": 16},
//                 {"policy": "sub-block", "segment_rules": [[128, 16], [32, 4], [0, 1]], "spread": true}]}
//
// Each object becomes the spec "NAME:key=value:..." in the order written (booleans as 1/0, a rule table
// as "128>16/32>4/0>1"), and that spec is the policy's name in every output.

#include <string>
#include <vector>

namespace nvlsim {

// Throws InputError "FILE: policies[i]: what is wrong".
std::vector<std::string> read_policy_file(const std::string& path);

}  // namespace nvlsim
