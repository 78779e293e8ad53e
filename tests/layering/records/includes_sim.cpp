// Must not compile: the records sim produces may not depend on the simulator.
#include "sim/core/replay.hpp"
