#include "sim/policy_file.hpp"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "models/input_error.hpp"
#include "models/json_file.hpp"
#include "schedulers/policy_registry.hpp"

namespace nvlsim {

namespace {

using Json = nlohmann::ordered_json;

// An integer as a signed 64-bit value; an unsigned one past 2^63 - 1 (which would wrap negative) becomes
// 2^63 - 1, outside every parameter's range, so the range check reports it.
long long integer_of(const Json& value) {
  if (value.is_number_unsigned() && value.get<unsigned long long>() > std::numeric_limits<long long>::max())
    return std::numeric_limits<long long>::max();
  return value.get<long long>();
}

ParamValue rule_table(const ParamDecl& decl, const Json& rules, const std::string& where) {
  std::vector<std::pair<long long, long long>> pairs;
  for (const auto& rule : rules) {
    if (!rule.is_array() || rule.size() != 2 || !rule[0].is_number_integer() || !rule[1].is_number_integer())
      throw InputError(fmt::format("{}: each rule is [{}]", where, decl.value_name));
    pairs.emplace_back(integer_of(rule[0]), integer_of(rule[1]));
  }
  return param_from_pairs(decl, pairs, where);
}

// The typed value, and its text in the policy's name.
std::pair<ParamValue, std::string> value_of(const ParamDecl& decl, const Json& value,
                                            const std::string& where) {
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    return {param_from_text(decl, text, where), text};
  }
  ParamValue typed;
  if (value.is_boolean())
    typed = param_from_bool(decl, value.get<bool>(), where);
  else if (value.is_number_integer())
    typed = param_from_int(decl, integer_of(value), where);
  else if (value.is_array())
    typed = rule_table(decl, value, where);
  else
    throw InputError(fmt::format("{}: expected a boolean, an integer, a string or a rule table", where));
  return {typed, param_text(typed)};
}

PolicyConfig config_of(const Json& entry, const std::string& where) {
  if (entry.is_string()) {
    try {
      return parse_policy(entry.get<std::string>());
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", where, e.what()));
    }
  }
  if (!entry.is_object() || !entry.contains("policy") || !entry["policy"].is_string())
    throw InputError(fmt::format("{}: expected a spec string or an object with a \"policy\" name", where));
  const std::string name = entry["policy"].get<std::string>();
  const PolicyType& type = find_policy_type(name, where);
  PolicyConfig config{name, &type, ParamValues(type.params)};
  for (const auto& [key, value] : entry.items()) {
    if (key == "policy") continue;
    const ParamDecl& decl = find_decl(type.params, key, type.name, where);
    auto [typed, text] = value_of(decl, value, fmt::format("{}.{}", where, key));
    config.params.set(decl, std::move(typed), where);
    config.text += fmt::format(":{}={}", key, text);
  }
  return config;
}

}  // namespace

std::vector<PolicyConfig> read_policy_file(const std::string& path) {
  // Ordered, so that a policy's name lists its parameters in the file's order.
  const Json doc = read_json_file<Json>(path);
  if (!doc.is_object() || !doc.contains("policies") || !doc["policies"].is_array() || doc["policies"].empty())
    throw InputError(fmt::format("{}: expected {{\"policies\": [...]}} with at least one policy", path));
  // A misspelt second list ("polices") would silently not run.
  for (const auto& [key, value] : doc.items())
    if (key != "policies")
      throw InputError(fmt::format("{}: {}: unknown key (expected policies)", path, key));
  std::vector<PolicyConfig> configs;
  for (std::size_t i = 0; i < doc["policies"].size(); ++i)
    configs.push_back(config_of(doc["policies"][i], fmt::format("{}: policies[{}]", path, i)));
  return configs;
}

}  // namespace nvlsim
