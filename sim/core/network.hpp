#pragma once
// The one seam between the replay core and the engine that moves its bytes and keeps its clock. The core
// never includes SimGrid: sim/simgrid_network.hpp runs it on SimGrid, and a test can run it on any model.

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "models/collective.hpp"

namespace nvlsim {

// One transfer: a job's flow on one plane, standing for `multiplicity` GPUs or NICs sending alike.
struct Flow {
  std::size_t job = 0;
  Plane plane = Plane::nvlink;
  int multiplicity = 1;
  double size = 0;  // bytes, a whole number
};

// A transfer to start: `flow` runs as the planned flow `planned`.
struct Launch {
  PlannedFlow planned;
  Flow flow;
};

// What cancelling a job's transfers found.
struct CancelledFlows {
  int flows = 0;
  double sent_share = 0;  // sum over those flows of the share of their bytes sent
};

class Network {
 public:
  virtual ~Network() = default;

  // The simulated time, s.
  virtual double now() const = 0;
  // Returns once a transfer finishes or the clock reaches `until` (infinity: only a transfer ends it).
  virtual void wait_until(double until) = 0;
  // No transfer in flight.
  virtual bool idle() const = 0;

  // Starts the transfers of one collective step of a job whose GPUs are `group_gpus` (by NVLink group,
  // group_by_zone): each `flow` as its planned flow. They run together, and no other transfer of the job
  // runs beside them (the next step starts when all have finished).
  virtual void launch_step(const std::vector<std::vector<int>>& group_gpus,
                           std::span<const Launch> launches) = 0;
  // The transfers that finished since the last call, in the order they finished.
  virtual std::vector<Flow> take_finished() = 0;
  // Stops the job's transfers.
  virtual CancelledFlows cancel(std::size_t job) = 0;
  // Bytes each plane carried since the last call (by Plane), over all transfers that ran meanwhile.
  virtual std::array<double, 2> take_carried() = 0;

  // Sets the NVLink bandwidth (bytes/s each way) the GPU's switch ports keep while parts are down.
  virtual void set_nvlink_bandwidth(int gpu, double bandwidth) = 0;
};

}  // namespace nvlsim
