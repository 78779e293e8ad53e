#include "sim/output_stage.hpp"

#include <atomic>

namespace nvlsim {

namespace {

// A signal handler may read only lock-free atomics.
std::atomic<OutputStage> stage{OutputStage::none};
static_assert(std::atomic<OutputStage>::is_always_lock_free);

}  // namespace

void set_output_stage(OutputStage s) {
  stage.store(s);
}

const char* output_stage_words() {
  switch (stage.load()) {
    case OutputStage::none:
      break;
    case OutputStage::moving:
      return "the output was moved into place only in part";
    case OutputStage::complete:
      return "the output was already written in full";
    case OutputStage::drawing:
      return "the output was already written in full, its figures not all drawn";
  }
  return "no output written";
}

}  // namespace nvlsim
