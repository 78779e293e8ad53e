#include "workloads/job_class.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string_view>

#include "models/input_error.hpp"
#include "models/json_file.hpp"
#include "models/read_number.hpp"

namespace nvlsim {

namespace {

using nlohmann::json;

// A segment is at most a whole machine: 2^20 trays is beyond any platform nvlsim accepts.
constexpr std::int64_t kMaxSegmentNodes = std::int64_t{1} << 20;

[[noreturn]] void fail(const std::string& file, std::string_view where, std::string_view what) {
  throw InputError(fmt::format("{}: {}: {}", file, where, what));
}

const json& member(const json& object, const char* key, const std::string& file, const std::string& where) {
  const auto found = object.find(key);
  if (found == object.end()) fail(file, where, fmt::format("missing \"{}\"", key));
  return *found;
}

// A misspelt key ("comm_fracton") would silently leave its field at the default; `where` is empty at the
// top level.
void only_keys(const json& object, std::initializer_list<std::string_view> known, const std::string& file,
               const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string expected;
    for (const std::string_view k : known) expected += (expected.empty() ? "" : ", ") + std::string(k);
    fail(file, where.empty() ? key : where + "." + key, fmt::format("unknown key (expected {})", expected));
  }
}

std::string text_of(const json& value, const std::string& file, const std::string& where) {
  if (!value.is_string()) fail(file, where, "expected a string");
  return value.get<std::string>();
}

JobClass parse_class(const json& entry, const std::string& file, const std::string& where) {
  if (!entry.is_object()) fail(file, where, "expected an object");
  only_keys(entry, {"name", "comm_fraction", "collective", "segment_nodes"}, file, where);
  JobClass c;
  c.name = text_of(member(entry, "name", file, where), file, where + ".name");
  // Names go into SWF headers as "name=number" lists and into jobs.csv.
  if (c.name.empty() || c.name.find_first_of(" =,\"\t") != std::string::npos)
    fail(file, where + ".name", "must be non-empty, without spaces, '=', ',' or quotes");
  if (const auto f = entry.find("comm_fraction"); f != entry.end()) {
    if (!f->is_number() || !std::isfinite(f->get<double>()) || f->get<double>() < 0 || f->get<double>() > 1)
      fail(file, where + ".comm_fraction", "must be a number between 0 and 1");
    c.comm_fraction = f->get<double>();
  }
  if (const auto f = entry.find("collective"); f != entry.end()) {
    const std::string name = text_of(*f, file, where + ".collective");
    if (name == "none")
      c.communicates = false;
    else if (!parse_collective(name, c.collective))
      fail(file, where + ".collective",
           fmt::format("expected all-reduce, all-to-all or none, got \"{}\"", name));
  }
  if (const auto f = entry.find("segment_nodes"); f != entry.end()) {
    // Read as 64 bits first: get<int> would wrap 4294967296 to 0 (and 2^64 - 1 reads as -1 here).
    if (!f->is_number_integer() || f->get<std::int64_t>() < 0 || f->get<std::int64_t>() > kMaxSegmentNodes)
      fail(file, where + ".segment_nodes",
           fmt::format("must be an integer in [0, {}] (0 = the policy's default)", kMaxSegmentNodes));
    c.segment_nodes = static_cast<int>(f->get<std::int64_t>());
  }
  return c;
}

SwfField parse_field(const std::string& name, const std::string& file, const std::string& where) {
  if (name == "executable") return SwfField::executable;
  if (name == "queue") return SwfField::queue;
  if (name == "partition") return SwfField::partition;
  if (name == "user") return SwfField::user;
  fail(file, where, fmt::format("expected executable, queue, partition or user, got \"{}\"", name));
}

int class_named(const ClassTable& table, const std::string& name, const std::string& file,
                const std::string& where) {
  const int index = table.find(name);
  if (index < 0) fail(file, where, fmt::format("no class named \"{}\"", name));
  return index;
}

}  // namespace

int ClassTable::find(std::string_view name) const {
  for (std::size_t i = 0; i < classes.size(); ++i)
    if (classes[i].name == name) return static_cast<int>(i);
  return -1;
}

int ClassTable::classify(const SwfRecord& record) const {
  for (const ClassRule& rule : rules) {
    std::int64_t value = 0;
    switch (rule.field) {
      case SwfField::executable:
        value = record.executable_number;
        break;
      case SwfField::queue:
        value = record.queue_number;
        break;
      case SwfField::partition:
        value = record.partition_number;
        break;
      case SwfField::user:
        value = record.user_id;
        break;
    }
    if (value == rule.value) return rule.job_class;
  }
  return default_class;
}

ClassTable builtin_class_table() {
  // f per class is an assumption (DOMAIN.md gives none): pre-training syncs gradients of a large model
  // every step (the model's global default, 0.3); fine-tuning moves fewer or smaller gradients; inference
  // only exchanges activations between tensor-parallel GPUs. Segments follow NVIDIA's advice (DOMAIN.md
  // §3): 16 trays for jobs of 128+ GPUs, 4 for 32-64, 1 for smaller ones.
  ClassTable table;
  table.classes = {{"pretrain", 0.3, Collective::all_reduce, true, 16},
                   {"finetune", 0.2, Collective::all_reduce, true, 4},
                   {"inference", 0.05, Collective::all_reduce, true, 1},
                   {"hpc", 0.3, Collective::all_reduce, true, 0}};
  table.default_class = 3;
  return table;
}

ClassTable load_class_table(const std::filesystem::path& path) {
  const std::string file = path.string();
  const json doc = read_json_file(path);
  if (!doc.is_object()) fail(file, "top level", "expected an object with \"classes\", \"default\", \"map\"");
  only_keys(doc, {"classes", "default", "map"}, file, "");

  ClassTable table = builtin_class_table();
  table.source = file;
  if (const auto list = doc.find("classes"); list != doc.end()) {
    if (!list->is_array() || list->empty()) fail(file, "classes", "expected a non-empty list");
    table.classes.clear();
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::string where = fmt::format("classes[{}]", i);
      JobClass c = parse_class((*list)[i], file, where);
      if (table.find(c.name) >= 0) fail(file, where + ".name", fmt::format("\"{}\" appears twice", c.name));
      table.classes.push_back(std::move(c));
    }
    // A user list without "default" falls back to its class named hpc, else its first class.
    table.default_class = std::max(0, table.find("hpc"));
  }
  if (const auto name = doc.find("default"); name != doc.end())
    table.default_class = class_named(table, text_of(*name, file, "default"), file, "default");

  if (const auto map = doc.find("map"); map != doc.end()) {
    if (!map->is_array()) fail(file, "map", "expected a list of {\"field\", \"value\", \"class\"}");
    table.rules_from_file = true;
    for (std::size_t i = 0; i < map->size(); ++i) {
      const std::string where = fmt::format("map[{}]", i);
      const json& rule = (*map)[i];
      if (!rule.is_object()) fail(file, where, "expected an object");
      only_keys(rule, {"field", "value", "class"}, file, where);
      const json& value = member(rule, "value", file, where);
      if (!value.is_number_integer() ||
          (value.is_number_unsigned() && value.get<std::uint64_t>() > INT64_MAX))
        fail(file, where + ".value", "expected a 64-bit integer (the SWF field's value)");
      table.rules.push_back(
          {parse_field(text_of(member(rule, "field", file, where), file, where + ".field"), file,
                       where + ".field"),
           value.get<std::int64_t>(),
           class_named(table, text_of(member(rule, "class", file, where), file, where + ".class"), file,
                       where + ".class")});
    }
  }
  return table;
}

std::vector<ClassRule> rules_from_header(std::string_view header_value, const ClassTable& table,
                                         std::string_view trace_name) {
  std::vector<ClassRule> rules;
  std::size_t i = 0;
  while (i < header_value.size()) {
    while (i < header_value.size() && header_value[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < header_value.size() && header_value[i] != ' ') ++i;
    if (start == i) break;
    const std::string_view entry = header_value.substr(start, i - start);
    const auto fail_entry = [&](std::string_view what) {
      throw InputError(fmt::format("{}: header Classes: \"{}\": {}", trace_name, entry, what));
    };
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos) fail_entry("expected NAME=EXECUTABLE_NUMBER");
    const int index = table.find(entry.substr(0, eq));
    if (index < 0) fail_entry(fmt::format("no class named \"{}\" in {}", entry.substr(0, eq), table.source));
    const auto number = read_number<std::int64_t>(entry.substr(eq + 1));
    if (!number) fail_entry("expected an integer after '='");
    rules.push_back({SwfField::executable, number.value, index});
  }
  return rules;
}

}  // namespace nvlsim
