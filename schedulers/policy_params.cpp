#include "schedulers/policy_params.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "models/input_error.hpp"
#include "models/read_number.hpp"

namespace nvlsim {

namespace {

std::string range_text(const ParamDecl& decl) {
  if (decl.max == std::numeric_limits<int>::max()) return fmt::format("an integer >= {}", decl.min);
  return fmt::format("an integer in [{}, {}]", decl.min, decl.max);
}

// What a value of `decl` may be: "an integer >= 0 or none".
std::string expected_text(const ParamDecl& decl) {
  if (decl.type == ParamType::pairs) return "a table";
  return decl.zero_word.empty() ? range_text(decl)
                                : fmt::format("{} or {}", range_text(decl), decl.zero_word);
}

[[noreturn]] void wrong_type(const ParamDecl& decl, std::string_view where, std::string_view got) {
  throw InputError(
      fmt::format("{}: expected {} ({}), got {}", where, decl.value_name, expected_text(decl), got));
}

}  // namespace

ParamValues::ParamValues(std::span<const ParamDecl> decls) : decls_(decls), values_(decls.size()) {}

void ParamValues::set(const ParamDecl& decl, ParamValue value, std::string_view where) {
  const auto i = static_cast<std::size_t>(&decl - decls_.data());
  if (values_.at(i)) throw InputError(fmt::format("{}: parameter '{}' given twice", where, decl.key));
  values_[i] = std::move(value);
}

const std::optional<ParamValue>& ParamValues::given(std::string_view key) const {
  for (std::size_t i = 0; i < decls_.size(); ++i)
    if (decls_[i].key == key) return values_[i];
  throw std::logic_error(fmt::format("parameter '{}' is not declared", key));
}

std::optional<int> ParamValues::integer(std::string_view key) const {
  const auto& value = given(key);
  if (value) return std::get<int>(*value);
  return find_decl(decls_, key, "", "").default_value;
}

bool ParamValues::flag(std::string_view key) const {
  const auto& value = given(key);
  if (value) return std::get<bool>(*value);
  return find_decl(decls_, key, "", "").default_value.value_or(0) != 0;
}

const IntPairs* ParamValues::pairs(std::string_view key) const {
  const auto& value = given(key);
  return value ? &std::get<IntPairs>(*value) : nullptr;
}

std::string ParamValues::canonical() const {
  std::string out;
  for (std::size_t i = 0; i < decls_.size(); ++i) {
    const std::optional<ParamValue>& value = values_[i];
    if (!value) continue;
    const std::optional<int>& fallback = decls_[i].default_value;
    const auto* number = std::get_if<int>(&*value);
    const auto* flag = std::get_if<bool>(&*value);
    if (fallback && ((number && *number == *fallback) || (flag && int{*flag} == *fallback))) continue;
    out += fmt::format("{}{}={}", out.empty() ? "" : ":", decls_[i].key, param_text(*value));
  }
  return out;
}

const ParamDecl& find_decl(std::span<const ParamDecl> decls, std::string_view key, std::string_view policy,
                           std::string_view where) {
  const auto found =
      std::find_if(decls.begin(), decls.end(), [&](const ParamDecl& d) { return d.key == key; });
  if (found != decls.end()) return *found;
  if (decls.empty())
    throw InputError(fmt::format("{}: {} takes no parameters, got '{}'", where, policy, key));
  std::vector<std::string_view> known;
  for (const ParamDecl& d : decls) known.push_back(d.key);
  throw InputError(fmt::format("{}: unknown parameter '{}' for {} (known: {})", where, key, policy,
                               fmt::join(known, ", ")));
}

ParamValue param_from_text(const ParamDecl& decl, std::string_view text, std::string_view where) {
  const auto fail = [&](std::string_view expected) -> InputError {
    return InputError(fmt::format("{}: '{}' is not {}", where, text, expected));
  };
  switch (decl.type) {
    case ParamType::integer: {
      if (!decl.zero_word.empty() && text == decl.zero_word) return 0;
      if (const auto value = read_number<int>(text)) return param_from_int(decl, value.value, where);
      throw fail(expected_text(decl));
    }
    case ParamType::flag:
      if (text != "0" && text != "1") throw fail("0 or 1");
      return text == "1";
    case ParamType::pairs: {
      std::vector<std::pair<long long, long long>> pairs;
      for (std::size_t start = 0; start <= text.size();) {
        const std::size_t slash = std::min(text.find('/', start), text.size());
        const std::string_view part = text.substr(start, slash - start);
        const std::size_t gt = part.find('>');
        const auto a = read_number<int>(part.substr(0, gt));
        const auto b = read_number<int>(gt == std::string_view::npos ? "" : part.substr(gt + 1));
        if (!a || !b) throw fail(fmt::format("a table {} of integers (at '{}')", decl.value_name, part));
        pairs.emplace_back(a.value, b.value);
        start = slash + 1;
      }
      return param_from_pairs(decl, pairs, where);
    }
  }
  throw std::logic_error("unknown parameter type");
}

ParamValue param_from_int(const ParamDecl& decl, long long value, std::string_view where) {
  if (decl.type == ParamType::flag) {
    if (value != 0 && value != 1) wrong_type(decl, where, std::to_string(value));
    return value == 1;
  }
  if (decl.type != ParamType::integer || value < decl.min || value > decl.max)
    wrong_type(decl, where, std::to_string(value));
  return static_cast<int>(value);
}

ParamValue param_from_bool(const ParamDecl& decl, bool value, std::string_view where) {
  if (decl.type != ParamType::flag) wrong_type(decl, where, value ? "true" : "false");
  return value;
}

ParamValue param_from_pairs(const ParamDecl& decl, const std::vector<std::pair<long long, long long>>& pairs,
                            std::string_view where) {
  if (decl.type != ParamType::pairs) wrong_type(decl, where, "a table");
  if (pairs.empty()) throw InputError(fmt::format("{}: the table {} is empty", where, decl.value_name));
  IntPairs out;
  for (const auto& [a, b] : pairs) {
    if (std::min(a, b) < decl.min || std::max(a, b) > decl.max)
      throw InputError(fmt::format("{}: {}>{}: each number must be {}", where, a, b, range_text(decl)));
    out.emplace_back(static_cast<int>(a), static_cast<int>(b));
  }
  return out;
}

std::string param_text(const ParamValue& value) {
  if (const auto* number = std::get_if<int>(&value)) return std::to_string(*number);
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "1" : "0";
  std::string out;
  for (const auto& [a, b] : std::get<IntPairs>(value))
    out += fmt::format("{}{}>{}", out.empty() ? "" : "/", a, b);
  return out;
}

}  // namespace nvlsim
