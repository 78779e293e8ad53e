#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "schedulers/policy_registry.hpp"

// docs/policies.md's parameter tables are hand-written; this keeps them to the declared parameters.

namespace {

using Row = std::pair<std::string, std::string>;  // key, default

std::string without_backticks(std::string text) {
  std::erase(text, '`');
  return text;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(' ');
  return first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// The rows "| `key=VALUE` | default | meaning |" of the section "## NAME — ...".
std::vector<Row> documented_params(const std::string& policy) {
  std::ifstream in(NVLSIM_SOURCE_DIR "/docs/policies.md");
  REQUIRE(in);
  std::vector<Row> rows;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## ")) inside = line.starts_with("## " + policy + " — ");
    if (!inside || !line.starts_with("| `")) continue;
    std::vector<std::string> cells;
    std::stringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) cells.push_back(trimmed(cell));
    REQUIRE(cells.size() >= 3);
    const std::string spec = without_backticks(cells[0]);
    rows.emplace_back(spec.substr(0, spec.find('=')), without_backticks(cells[1]));
  }
  return rows;
}

}  // namespace

TEST_CASE("docs/policies.md documents exactly each policy's declared parameters and defaults",
          "[policy_registry]") {
  for (const nvlsim::PolicyType* policy : nvlsim::policy_types()) {
    INFO(policy->name);
    std::vector<Row> declared;
    for (const nvlsim::ParamDecl& p : policy->params) declared.emplace_back(p.key, p.default_text);
    CHECK(documented_params(std::string(policy->name)) == declared);
  }
}
