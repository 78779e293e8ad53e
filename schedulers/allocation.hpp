#pragma once
// What a placement gives a job: the GPUs it runs on, and trays it closes to everyone else.

#include <vector>

namespace nvlsim {

struct Allocation {
  std::vector<int> gpus;  // GPU ids the job runs on, ascending
  std::vector<int>
      held_trays;  // trays closed to other jobs while it runs (whole-block exclusivity), ascending
};

}  // namespace nvlsim
