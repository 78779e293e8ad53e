#include "sim/deferred_signals.hpp"

#include <pthread.h>

#include <csignal>

namespace nvlsim {

namespace {

sigset_t interrupting() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

void DeferredSignals::hold() {
  const sigset_t set = interrupting();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  holding_ = true;
}

void DeferredSignals::release() {
  if (!holding_) return;
  holding_ = false;
  const sigset_t set = interrupting();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

void DeferredSignals::check() {
  sigset_t pending;
  sigemptyset(&pending);
  if (sigpending(&pending) == 0 &&
      (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1))
    throw Interrupted();
}

}  // namespace nvlsim
