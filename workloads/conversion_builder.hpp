#pragma once
// What the three converters share: numbering names (users, queues) and finishing the SWF header.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/trace_conversion.hpp"

namespace nvlsim {

// Numbers names 1, 2, ... in order of first appearance (SWF fields hold integers only).
class NameNumbers {
 public:
  std::int64_t number(std::string_view name);
  // "a=1 b=2", for the header, so --classes rules can name them.
  std::string listing() const;

 private:
  std::vector<std::string> names_;
};

// Shifts submit times so the earliest is 0 and writes the header: source format, UnixStartTime (the
// earliest submit time as the input gave it), MaxJobs, MaxProcs (largest job) and the queue numbering.
void finish_conversion(Conversion& conversion, std::string_view computer, std::string_view queue_column,
                       const NameNumbers& queues);

}  // namespace nvlsim
