#pragma once
// Errors in user input (trace, platform, flags), carrying a message that names the place.

#include <stdexcept>
#include <string>

namespace nvlsim {

// Thrown for bad input; the message already names file, line and field ("FILE:LINE: field N (name): ...").
// The CLI prints it and exits with status 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace nvlsim
