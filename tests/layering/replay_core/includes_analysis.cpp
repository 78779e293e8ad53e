// Must not compile: the replay core produces records (analysis/records/) but computes no metrics.
#include "analysis/summary.hpp"
