// Must not compile in a layer below sim/: schedulers may not use SimGrid.
#include <simgrid/s4u/Engine.hpp>
