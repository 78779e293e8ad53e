// Compiles: the records see their own folder (the control for the two probes that must fail).
#include "analysis/records/attempt_record.hpp"
#include "analysis/records/job_outcome.hpp"
#include "analysis/records/state_sample.hpp"
