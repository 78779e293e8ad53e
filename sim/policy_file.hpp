#pragma once
// --policy-file FILE.json: policies written as JSON, rule tables included.
//
//   {"policies": ["per-gpu",
//                 {"policy": "block", "min_block_nodes": 16},
//                 {"policy": "sub-block", "segment_rules": [[128, 16], [32, 4], [0, 1]], "spread": true}]}
//
// Each object's values are typed through its policy's declared parameters, as a spec's are. Its name in
// every output is the spec "NAME:key=value:..." in the order written (booleans as 1/0, a rule table as
// "128>16/32>4/0>1", strings as written).

#include <string>
#include <vector>

#include "schedulers/policy_spec.hpp"

namespace nvlsim {

// Throws InputError "FILE: policies[i]: what is wrong" or "FILE: policies[i].KEY: what is wrong".
std::vector<PolicyConfig> read_policy_file(const std::string& path);

}  // namespace nvlsim
