#include "schedulers/yaml_stray_comma.hpp"

#include <cctype>
#include <cstddef>

namespace nvlsim {

namespace {

bool anchor_character(char c) {
  return std::string_view(" \t\r\n,[]{}").find(c) == std::string_view::npos;
}

// A tag's handle and suffix as yaml-cpp 0.7 reads them: letters, digits, '-', '!', URI punctuation and
// %-escapes, but no flow indicator (found by trying "!tX," for each X).
bool tag_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("-!#;/?:@&=+$_.~*'()%").find(c) != std::string_view::npos;
}

}  // namespace

std::optional<TextPosition> find_stray_comma(std::string_view text) {
  int depth = 0;  // open [ and { of flow collections
  int line = 1;
  std::size_t line_start = 0;
  char previous = '\n';
  bool after_closed = false;  // the last token was a quoted scalar or a flow collection, now closed
  bool after_token = false;   // the previous character ended a quoted scalar, anchor, tag, alias or flow list
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    // Where a token may begin: '[', '#' and quotes inside a plain scalar ("n[1-4]", "don't") are text, but
    // right after a quoted scalar, an anchor or a flow collection yaml-cpp starts the next token ("''&t,").
    const bool token_start = previous == '\n' || previous == ' ' || previous == '\t' || after_token ||
                             (depth > 0 && (previous == '[' || previous == '{' || previous == ','));
    after_token = false;
    if (c == '\n') {
      ++line;
      line_start = i + 1;
      previous = '\n';
      continue;
    }
    if (token_start && c == '#') {
      i = text.find('\n', i);
      if (i == std::string_view::npos) break;
      --i;  // the newline is counted above
      previous = ' ';
      continue;
    }
    if (token_start && (c == '"' || c == '\'')) {
      std::size_t j = i + 1;
      for (; j < text.size(); ++j) {
        if (c == '"' && text[j] == '\\') {
          ++j;
        } else if (text[j] == '\n') {
          ++line;
          line_start = j + 1;
        } else if (text[j] == c) {
          if (c == '\'' && j + 1 < text.size() && text[j + 1] == '\'') {
            ++j;  // '' is a quote inside single quotes
            continue;
          }
          break;
        }
      }
      i = j;
      previous = c;
      after_closed = depth == 0;
      after_token = true;
      continue;
    }
    if (token_start && (c == '&' || c == '!' || c == '*')) {
      // Where yaml-cpp 0.7 ends them: an anchor or alias at a blank or a flow indicator ("&t,"), a tag at
      // the first character that is not a URI character ("!t\"\","), so the next token starts there.
      const auto continues = c == '!' ? tag_character : anchor_character;
      while (i + 1 < text.size() && continues(text[i + 1])) ++i;
      previous = c;
      after_closed = depth == 0;
      after_token = true;
      continue;
    }
    if (c == ',' && depth == 0 && (token_start || after_closed))
      return TextPosition{line, static_cast<int>(i - line_start) + 1};
    after_closed = false;
    if ((c == '[' || c == '{') && (token_start || depth > 0)) {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      after_closed = --depth == 0;
      after_token = true;
    }
    previous = c;
  }
  return std::nullopt;
}

std::optional<TextPosition> find_control_character(std::string_view text) {
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    } else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
      return TextPosition{line, static_cast<int>(i - line_start) + 1};
    }
  }
  return std::nullopt;
}

}  // namespace nvlsim
