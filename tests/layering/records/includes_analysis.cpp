// Must not compile: the records analysis reads may not depend on the metrics computed from them.
#include "analysis/summary.hpp"
