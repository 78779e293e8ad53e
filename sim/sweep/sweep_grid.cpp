#include "sim/sweep/sweep_grid.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>

#include "models/input_error.hpp"
#include "models/json_file.hpp"
#include "models/read_number.hpp"
#include "schedulers/policy_registry.hpp"
#include "schedulers/yaml_documents.hpp"

namespace nvlsim {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMostSeeds = 1'000'000;

// A node with the line and field its errors name.
struct Field {
  YAML::Node node;
  int line = 0;
  std::string name;  // "axes.load[2]"
};

class Reader {
 public:
  Reader(const fs::path& file, const GridKeys& keys) : file_(file), keys_(keys) {}

  const fs::path& file() const { return file_; }

  [[noreturn]] void fail(int line, std::string_view field, std::string_view what) const {
    if (field.empty()) throw InputError(fmt::format("{}:{}: {}", file_.string(), line, what));
    throw InputError(fmt::format("{}:{}: {}: {}", file_.string(), line, field, what));
  }

  // The members of a mapping in the order written, each at its key's line (yaml-cpp marks a null value at
  // the next token).
  std::vector<std::pair<std::string, Field>> members(const Field& map, std::string_view what) const {
    if (!map.node.IsMap()) fail(map.line, map.name, fmt::format("expected {}", what));
    std::vector<std::pair<std::string, Field>> out;
    std::set<std::string> seen;
    for (const auto& pair : map.node) {
      const int line = pair.first.Mark().line + 1;
      if (!pair.first.IsScalar()) fail(line, map.name, "expected a string key");
      const std::string& key = pair.first.Scalar();
      const std::string name = map.name.empty() ? key : map.name + "." + key;
      if (!seen.insert(key).second) fail(line, name, "given twice");
      out.emplace_back(key, Field{pair.second, line, name});
    }
    return out;
  }

  std::vector<Field> items(const Field& list, std::string_view what) const {
    if (!list.node.IsSequence()) fail(list.line, list.name, fmt::format("expected {}", what));
    std::vector<Field> out;
    for (const YAML::Node& item : list.node)
      out.push_back({item, item.Mark().line + 1, fmt::format("{}[{}]", list.name, out.size())});
    return out;
  }

  std::string scalar(const Field& field, std::string_view what) const {
    if (!field.node.IsScalar() || field.node.Scalar().empty())
      fail(field.line, field.name, fmt::format("expected {}", what));
    return field.node.Scalar();
  }

  const GridKey& key(const std::string& name, int line, std::string_view field) const {
    const GridKey* key = keys_.find(name);
    if (key == nullptr) fail(line, field, fmt::format("unknown setting (known: {})", keys_.names()));
    return *key;
  }

  // One setting of `key` at `field`: checked as the command line would check it, a file name made absolute.
  GridSetting setting(const GridKey& key, const Field& field) const {
    if (!key.takes_value) {
      bool on = false;
      if (!field.node.IsScalar() || !YAML::convert<bool>::decode(field.node, on))
        fail(field.line, field.name, "expected true or false");
      return {key.name, on ? "true" : "false", field.line};
    }
    std::string value = scalar(field, "a number or a string");
    try {
      keys_.check(key.name, value);
    } catch (const InputError& e) {
      fail(field.line, field.name, e.what());
    }
    if (key.names_file) value = resolve(key.name, value);
    return {key.name, value, field.line};
  }

  std::vector<GridSetting> settings(const Field& map, std::string_view what) const {
    std::vector<GridSetting> out;
    for (const auto& [name, field] : members(map, what))
      out.push_back(setting(key(name, field.line, field.name), field));
    return out;
  }

  std::vector<std::uint64_t> seeds(const Field& field) const {
    const auto number = [&](const Field& f, std::uint64_t least) {
      const auto read = read_number<std::uint64_t>(f.node.IsScalar() ? f.node.Scalar() : "");
      if (!read || read.value < least || read.value > (least ? kMostSeeds : UINT64_MAX))
        fail(f.line, f.name,
             least ? fmt::format("expected a count of seeds, 1 to {}", kMostSeeds)
                   : "expected a seed, 0 to 2^64-1");
      return read.value;
    };
    std::vector<std::uint64_t> out;
    if (!field.node.IsSequence()) {
      const std::uint64_t count = number(field, 1);
      for (std::uint64_t s = 1; s <= count; ++s) out.push_back(s);
      return out;
    }
    for (const Field& item : items(field, "a list of seeds")) {
      out.push_back(number(item, 0));
      if (std::count(out.begin(), out.end(), out.back()) > 1) fail(item.line, item.name, "seed given twice");
    }
    if (out.empty()) fail(field.line, field.name, "expected at least one seed");
    return out;
  }

  std::vector<std::string> policies(const Field& field) const {
    std::vector<std::string> out;
    for (const Field& item : items(field, "a list of policy specs")) {
      out.push_back(scalar(item, "a policy spec"));
      if (out.back().find(',') != std::string::npos)
        fail(item.line, item.name, "one policy spec per item (no commas)");
      try {
        parse_policy(out.back());
      } catch (const InputError& e) {
        fail(item.line, item.name, e.what());
      }
      if (std::count(out.begin(), out.end(), out.back()) > 1)
        fail(item.line, item.name, "policy given twice");
    }
    return out;
  }

 private:
  // A relative name is the file beside the grid; a shipped name with no such file stays a shipped name.
  std::string resolve(const std::string& key, const std::string& value) const {
    const fs::path path(value);
    if (path.is_absolute()) return value;
    const fs::path beside = (fs::absolute(file_).parent_path() / path).lexically_normal();
    return keys_.builtin(key, value, beside) ? value : beside.string();
  }

  const fs::path& file_;
  const GridKeys& keys_;
};

YAML::Node load_document(std::string_view text, const Reader& r) {
  std::vector<YAML::Node> documents;
  try {
    documents = load_yaml_documents(text);
  } catch (const YamlSyntaxError& e) {
    if (e.line() == 0) throw InputError(fmt::format("{}: {}", r.file().string(), e.what()));
    r.fail(e.line(), "", e.what());
  }
  if (documents.size() > 1) r.fail(documents[1].Mark().line + 1, "", "expected one YAML document");
  if (documents.empty() || documents.front().IsNull()) r.fail(1, "", "empty grid (see docs/sweep.md)");
  return documents.front();
}

}  // namespace

Grid parse_grid(std::string_view text, const fs::path& file, const GridKeys& keys) {
  const Reader r(file, keys);
  const YAML::Node document = load_document(text, r);
  Grid grid;
  grid.file = file;
  grid.seeds = {1};
  const Field root{document, document.Mark().line + 1, ""};
  for (const auto& [name, field] : r.members(root, "a mapping of base, axes, cells, policies and seeds")) {
    if (name == "base") {
      grid.base = r.settings(field, "a mapping of settings");
    } else if (name == "axes") {
      for (const auto& [key_name, values] : r.members(field, "a mapping of settings to lists of values")) {
        const GridKey& key = r.key(key_name, values.line, values.name);
        GridAxis axis{key.name, {}};
        for (const Field& value : r.items(values, "a list of values"))
          axis.values.push_back(r.setting(key, value));
        if (axis.values.empty()) r.fail(values.line, values.name, "expected at least one value");
        grid.axes.push_back(std::move(axis));
      }
    } else if (name == "cells") {
      for (const Field& cell : r.items(field, "a list of cells"))
        grid.cells.push_back(r.settings(cell, "a mapping of settings"));
    } else if (name == "policies") {
      grid.policies = r.policies(field);
    } else if (name == "seeds") {
      grid.seeds = r.seeds(field);
    } else {
      r.fail(field.line, name, "unknown key (known: base, axes, cells, policies, seeds)");
    }
  }
  for (const GridAxis& axis : grid.axes)
    for (const GridSetting& s : grid.base)
      if (s.key == axis.key) r.fail(s.line, "base." + s.key, "also an axis: give it in one place");
  return grid;
}

Grid read_grid(const fs::path& file, const GridKeys& keys) {
  return parse_grid(read_json_text(file), file, keys);
}

}  // namespace nvlsim
