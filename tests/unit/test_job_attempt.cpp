#include <catch2/catch.hpp>

#include "sim/core/job_attempt.hpp"

using nvlsim::Attempt;
using nvlsim::JobProgress;

TEST_CASE("an attempt's work done counts whole rounds, computation as it goes and the collective's share") {
  Attempt a;
  a.work = 1000;  // 4 rounds of 250 s: 150 computing, 100 communicating
  a.work_started = 100;
  a.compute_per_round = 150;
  a.rounds = 4;
  CHECK(a.work_done(50, 0) == 0);  // still restarting
  a.round = 2;
  a.speed_since = 700;
  CHECK(a.work_done(760, 0) == Approx(560));  // two rounds and 60 s of computation
  CHECK(a.work_done(900, 0) == Approx(650));  // computation capped at the round's share
  a.computed = 40;  // 40 s done before a neighbour on its shared GPU halved the speed at 700
  a.speed = 0.5;
  CHECK(a.work_done(760, 0) == Approx(500 + 40 + 30));
  a.communicating = true;
  CHECK(a.work_done(900, 0.25) == Approx(500 + 150 + 25));
  a.round = 4;
  CHECK(a.work_done(2000, 0) == Approx(1000));
}

TEST_CASE("checkpoints keep the work up to the last multiple of the interval, over all attempts") {
  JobProgress p;
  CHECK(p.checkpointed(4000, 1800, 10000) == 3600);
  p.saved_work = 3600;
  CHECK(p.checkpointed(100, 1800, 10000) == 3600);  // 3700 s done: no new checkpoint
  CHECK(p.checkpointed(1900, 1800, 10000) == 5400);
  CHECK(p.checkpointed(1900, 0, 10000) == 3600);    // no checkpoints: only what was saved
  CHECK(p.checkpointed(9000, 1800, 5000) == 5000);  // never beyond the job's run time
}
