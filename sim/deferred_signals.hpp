#pragma once
// SIGINT and SIGTERM held back while a run joins its files and moves them into place, so that one arriving
// then cannot end the process between two files and leave parts and half a set behind: the writers check
// for a held signal at each file boundary and give up (throwing Interrupted, so that unwinding removes what
// was written), and the signal is delivered when the guard ends, where its handler says so and ends the
// process. Declare the guard before the objects that clean up, so that it ends after them.

#include <stdexcept>

namespace nvlsim {

struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

class DeferredSignals {
 public:
  DeferredSignals() = default;  // not holding yet
  ~DeferredSignals() { release(); }
  DeferredSignals(const DeferredSignals&) = delete;
  DeferredSignals& operator=(const DeferredSignals&) = delete;

  void hold();
  // Delivers a held signal now.
  void release();
  // Throws Interrupted when SIGINT or SIGTERM waits to be delivered; nothing when none is held.
  static void check();

 private:
  bool holding_ = false;
};

}  // namespace nvlsim
