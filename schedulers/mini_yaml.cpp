#include "schedulers/mini_yaml.hpp"

#include <fmt/format.h>

#include "models/input_error.hpp"

namespace nvlsim {
namespace {

struct Line {
  int number = 0;
  int indent = 0;
  std::string_view text;  // without indentation, comment and trailing blanks
};

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : file_(file) {
    int number = 0;
    for (std::size_t start = 0; start <= text.size();) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      std::string_view raw = text.substr(start, end - start);
      ++number;
      start = end + 1;
      if (const std::size_t hash = raw.find('#');
          hash != std::string_view::npos && (hash == 0 || raw[hash - 1] == ' ' || raw[hash - 1] == '\t')) {
        raw = raw.substr(0, hash);
      }
      const std::string_view content = trim(raw);
      if (content.empty() || content == "---") continue;
      if (raw.find('\t') < raw.find_first_not_of(" \t")) throw error(number, "tab in indentation");
      lines_.push_back({number, static_cast<int>(raw.find_first_not_of(' ')), content});
    }
  }

  YamlNode document() {
    if (lines_.empty()) return YamlNode{YamlNode::Kind::kSequence, 1, 0, {}, {}, {}};
    YamlNode root = block(lines_.front().indent);
    if (next_ < lines_.size()) throw error(lines_[next_].number, "unexpected indentation");
    return root;
  }

 private:
  InputError error(int line, std::string_view what) const {
    return InputError(fmt::format("{}:{}: {}", file_, line, what));
  }

  static bool is_item(std::string_view text) { return text == "-" || text.starts_with("- "); }

  // The node made of the lines at exactly `indent` starting at next_.
  YamlNode block(int indent) {
    const Line& first = lines_[next_];
    if (first.indent != indent) throw error(first.number, "unexpected indentation");
    return is_item(first.text) ? sequence(indent) : mapping(indent);
  }

  YamlNode sequence(int indent) {
    YamlNode node{YamlNode::Kind::kSequence, lines_[next_].number, 0, {}, {}, {}};
    while (next_ < lines_.size() && lines_[next_].indent == indent && is_item(lines_[next_].text)) {
      Line& line = lines_[next_];
      const std::string_view rest = trim(line.text.substr(1));
      if (rest.empty()) {
        ++next_;
        if (next_ == lines_.size() || lines_[next_].indent <= indent) throw error(line.number, "empty item");
        node.sequence.push_back(block(lines_[next_].indent));
      } else {
        // "- key: value" opens a mapping whose further keys sit where "key" does.
        line.indent += static_cast<int>(line.text.size() - rest.size());
        line.text = rest;
        node.sequence.push_back(block(line.indent));
      }
    }
    return node;
  }

  YamlNode mapping(int indent) {
    YamlNode node{YamlNode::Kind::kMapping, lines_[next_].number, 0, {}, {}, {}};
    while (next_ < lines_.size() && lines_[next_].indent == indent && !is_item(lines_[next_].text)) {
      const Line line = lines_[next_++];
      const std::size_t colon = line.text.find(": ");
      const bool bare = line.text.ends_with(':');
      if (colon == std::string_view::npos && !bare)
        throw error(line.number, fmt::format("expected 'key: value', got '{}'", line.text));
      const std::string_view key =
          trim(line.text.substr(0, bare && colon == std::string_view::npos ? line.text.size() - 1 : colon));
      for (const auto& [existing, value] : node.mapping) {
        if (existing == key) throw error(line.number, fmt::format("key '{}' repeated", key));
      }
      YamlNode value;
      if (colon != std::string_view::npos) {
        value = scalar_or_flow(trim(line.text.substr(colon + 1)), line.number);
      } else if (next_ < lines_.size() && (lines_[next_].indent > indent ||
                                           (lines_[next_].indent == indent && is_item(lines_[next_].text)))) {
        value = block(lines_[next_].indent);
      } else {
        value = YamlNode{YamlNode::Kind::kScalar, line.number, 0, {}, {}, {}};  // "key:" with nothing: empty
      }
      value.key_line = line.number;
      node.mapping.emplace_back(std::string(key), std::move(value));
    }
    return node;
  }

  YamlNode scalar_or_flow(std::string_view text, int line) const {
    if (!text.starts_with('['))
      return YamlNode{YamlNode::Kind::kScalar, line, 0, unquote(text, line), {}, {}};
    if (!text.ends_with(']')) throw error(line, fmt::format("unterminated flow sequence '{}'", text));
    YamlNode node{YamlNode::Kind::kSequence, line, 0, {}, {}, {}};
    const std::string_view inside = trim(text.substr(1, text.size() - 2));
    for (std::size_t start = 0; !inside.empty() && start <= inside.size();) {
      const std::size_t comma = std::min(inside.find(',', start), inside.size());
      node.sequence.push_back({YamlNode::Kind::kScalar,
                               line,
                               0,
                               unquote(trim(inside.substr(start, comma - start)), line),
                               {},
                               {}});
      start = comma + 1;
    }
    return node;
  }

  std::string unquote(std::string_view text, int line) const {
    if (text.empty() || (text.front() != '"' && text.front() != '\'')) {
      if (text.starts_with('{') || text.starts_with('&') || text.starts_with('*') || text.starts_with('|') ||
          text.starts_with('>')) {
        throw error(line, fmt::format("YAML feature not supported in topology.yaml: '{}'", text));
      }
      return std::string(text);
    }
    if (text.size() < 2 || text.back() != text.front())
      throw error(line, fmt::format("unterminated quote in '{}'", text));
    return std::string(text.substr(1, text.size() - 2));
  }

  std::string_view file_;
  std::vector<Line> lines_;
  std::size_t next_ = 0;
};

}  // namespace

YamlNode parse_yaml(std::string_view text, std::string_view file) {
  return Parser(text, file).document();
}

}  // namespace nvlsim
