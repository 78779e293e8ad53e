#pragma once
// Policy parameters, declared once per policy as a table of ParamDecl. The same table validates specs
// ("sub-block:segment=8") and policy files, lists the parameters in `nvlsim run --help`, and is checked
// against docs/policies.md by a test.

#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace nvlsim {

enum class ParamType {
  integer,  // in [min, max]; `zero_word` also reads as 0
  flag,     // 0 or 1 (true or false in a policy file)
  pairs,    // a table "A>B/A>B/..." ([[A, B], ...] in a policy file), each number in [min, max]
};

using IntPairs = std::vector<std::pair<int, int>>;
using ParamValue = std::variant<int, bool, IntPairs>;

struct ParamDecl {
  std::string_view key;
  ParamType type = ParamType::integer;
  std::string_view value_name;    // the value as help and docs show it: "K", "1", "G>S/G>S/..."
  std::string_view default_text;  // the default as help and docs/policies.md's table state it
  std::string_view help;          // one line
  int min = 0;
  int max = std::numeric_limits<int>::max();
  std::optional<int> default_value{};  // integer or flag value when not given; nullopt: see default_text
  std::string_view zero_word{};
};

// The parameters one policy was given, typed, against its declarations.
class ParamValues {
 public:
  explicit ParamValues(std::span<const ParamDecl> decls = {});

  std::span<const ParamDecl> decls() const { return decls_; }
  // Throws InputError "{where}: KEY given twice" when the key already has a value.
  void set(const ParamDecl& decl, ParamValue value, std::string_view where);
  // The value given, else the declared default (nullopt when there is none).
  std::optional<int> integer(std::string_view key) const;
  bool flag(std::string_view key) const;
  const IntPairs* pairs(std::string_view key) const;
  // "key=value" of each value that differs from its default, in declared order, ':'-separated: the same
  // text whatever the order the parameters were given in and whether defaults were spelled out.
  std::string canonical() const;

 private:
  const std::optional<ParamValue>& given(std::string_view key) const;

  std::span<const ParamDecl> decls_;
  std::vector<std::optional<ParamValue>> values_;  // parallel to decls_
};

// The declaration of `key`. Throws InputError "{where}: unknown parameter 'KEY' for POLICY (known: ...)".
const ParamDecl& find_decl(std::span<const ParamDecl> decls, std::string_view key, std::string_view policy,
                           std::string_view where);

// A value from its text in a spec. Throws InputError "{where}: 'TEXT' is not ..." naming the range.
ParamValue param_from_text(const ParamDecl& decl, std::string_view text, std::string_view where);
// Values from a policy file's JSON scalars and tables, checked as param_from_text checks text.
ParamValue param_from_int(const ParamDecl& decl, long long value, std::string_view where);
ParamValue param_from_bool(const ParamDecl& decl, bool value, std::string_view where);
ParamValue param_from_pairs(const ParamDecl& decl, const std::vector<std::pair<long long, long long>>& pairs,
                            std::string_view where);

// A value as a spec writes it: 8, 1 / 0, 128>16/32>4/0>1.
std::string param_text(const ParamValue& value);

}  // namespace nvlsim
