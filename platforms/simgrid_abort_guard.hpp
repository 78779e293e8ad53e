#pragma once
// SimGrid stops the process with abort() rather than an exception on some errors in a platform file (a
// link or route declared twice, a zone routing it does not know), which ended nvlsim with a core dump and
// a backtrace. While a guard lives, SimGrid's log goes to memory, and such an abort instead ends the
// process as every other bad input does: "FILE: SimGrid cannot load it: MESSAGE" on stderr, status 2.

#include <string>

namespace nvlsim {

class SimGridAbortGuard {
 public:
  explicit SimGridAbortGuard(const std::string& file);
  // Restores SimGrid's log and SIGABRT, and passes on what SimGrid logged meanwhile (its warnings).
  ~SimGridAbortGuard();
  SimGridAbortGuard(const SimGridAbortGuard&) = delete;
  SimGridAbortGuard& operator=(const SimGridAbortGuard&) = delete;
};

}  // namespace nvlsim
