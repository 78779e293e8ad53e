#include "analysis/records/job_outcome.hpp"

namespace nvlsim {

std::string_view to_string(FinalState state) {
  switch (state) {
    case FinalState::completed_successfully:
      return "COMPLETED_SUCCESSFULLY";
    case FinalState::completed_failed:
      return "COMPLETED_FAILED";
    case FinalState::completed_walltime_reached:
      return "COMPLETED_WALLTIME_REACHED";
    case FinalState::completed_killed:
      return "COMPLETED_KILLED";
    case FinalState::rejected:
      return "REJECTED";
  }
  return "UNKNOWN";
}

}  // namespace nvlsim
