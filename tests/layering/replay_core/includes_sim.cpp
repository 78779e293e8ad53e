// Must not compile: the replay core may not see the rest of sim/, which runs it on SimGrid.
#include "sim/job_driver.hpp"
