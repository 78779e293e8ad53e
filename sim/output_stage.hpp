#pragma once
// How far the run's output has got, for the words of the SIGINT/SIGTERM handler: a signal held back while
// the set is moved into place is delivered after it, and a run interrupted while its figures are drawn has
// already written everything else, so "no output written" is not always true.

namespace nvlsim {

enum class OutputStage {
  none,      // nothing of this run is in place
  moving,    // the set was being moved into place and that failed part way
  complete,  // every file of the set is in place
  drawing,   // complete, and --plots is drawing the figures
};

void set_output_stage(OutputStage stage);

// What the folder holds now, said after "interrupted (SIGINT): ". Async-signal-safe.
const char* output_stage_words();

}  // namespace nvlsim
