// Must not compile: the replay core reaches the engine only through sim/core/network.hpp.
#include <simgrid/s4u/Engine.hpp>
