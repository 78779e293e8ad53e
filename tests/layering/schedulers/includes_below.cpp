// Compiles: schedulers may use models/ and schedulers/ (the control for the two probes that must fail).
#include "models/cluster_shape.hpp"
#include "schedulers/cluster_state.hpp"
