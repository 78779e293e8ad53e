#pragma once
// Shared by the harnesses: the input as a file for parsers that take a path, and the rule that a parser
// may reject input only with its documented exception.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "models/input_error.hpp"

namespace nvlsim::fuzz {

// A private folder per process, removed at exit, so parallel runs never share an input file.
class InputFolder {
 public:
  InputFolder()
      : path_(std::filesystem::temp_directory_path() / ("nvlsim-fuzz-" + std::to_string(getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~InputFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Writes the input to "input" + suffix (the suffix selects the format where the parser looks at it).
inline std::filesystem::path input_file(const std::uint8_t* data, std::size_t size, std::string_view suffix) {
  static const InputFolder folder;
  std::filesystem::path path = folder.path() / ("input" + std::string(suffix));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out.flush()) std::abort();  // the harness's own failure, not a finding about the parser
  return path;
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs the parser; an InputError is the expected answer to bad input. Anything else escapes, and
// libFuzzer reports the uncaught exception as a crash.
template <class Parse>
bool parses(Parse&& parse) {
  try {
    parse();
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// A broken invariant on accepted input: abort so libFuzzer keeps the input.
inline void require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace nvlsim::fuzz
