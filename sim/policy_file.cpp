#include "sim/policy_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "models/input_error.hpp"

namespace nvlsim {

namespace {

using Json = nlohmann::ordered_json;

std::string rule_table(const Json& rules, const std::string& where) {
  std::string out;
  for (const auto& rule : rules) {
    if (!rule.is_array() || rule.size() != 2 || !rule[0].is_number_integer() || !rule[1].is_number_integer())
      throw InputError(fmt::format("{}: each rule is [min_gpus, segment_nodes]", where));
    out += fmt::format("{}{}>{}", out.empty() ? "" : "/", rule[0].get<long>(), rule[1].get<long>());
  }
  return out;
}

std::string spec_of(const Json& entry, const std::string& where) {
  if (entry.is_string()) return entry.get<std::string>();
  if (!entry.is_object() || !entry.contains("policy") || !entry["policy"].is_string())
    throw InputError(fmt::format("{}: expected a spec string or an object with a \"policy\" name", where));
  std::string spec = entry["policy"].get<std::string>();
  for (const auto& [key, value] : entry.items()) {
    if (key == "policy") continue;
    const std::string at = fmt::format("{}.{}", where, key);
    std::string text;
    if (value.is_boolean())
      text = std::to_string(value.get<bool>() ? 1 : 0);
    else if (value.is_number_integer())
      text = std::to_string(value.get<long>());
    else if (value.is_string())
      text = value.get<std::string>();
    else if (value.is_array())
      text = rule_table(value, at);
    else
      throw InputError(fmt::format("{}: expected a boolean, an integer, a string or a rule table", at));
    spec += fmt::format(":{}={}", key, text);
  }
  return spec;
}

}  // namespace

std::vector<std::string> read_policy_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open", path));
  Json doc;
  try {
    doc = Json::parse(in);
  } catch (const Json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  if (!doc.is_object() || !doc.contains("policies") || !doc["policies"].is_array() || doc["policies"].empty())
    throw InputError(fmt::format("{}: expected {{\"policies\": [...]}} with at least one policy", path));
  std::vector<std::string> specs;
  for (std::size_t i = 0; i < doc["policies"].size(); ++i)
    specs.push_back(spec_of(doc["policies"][i], fmt::format("{}: policies[{}]", path, i)));
  return specs;
}

}  // namespace nvlsim
