#pragma once
// SWF text parsed in memory, for the reader's tests: the trace, or the message of the error it raises.

#include <sstream>
#include <string>

#include "models/input_error.hpp"
#include "workloads/swf_reader.hpp"

namespace nvlsim::test {

inline SwfTrace parse(const std::string& text, SwfReadOptions options = {}) {
  std::istringstream in(text);
  return parse_swf(in, "trace.swf", options);
}

// The message of the InputError parsing `text` throws, or "no error".
inline std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace nvlsim::test
