// Must not compile in a layer below sim/: schedulers may not see the simulation core.
#include "sim/job_driver.hpp"
