#include "sim/replay.hpp"

#include "sim/sharing_check.hpp"

namespace nvlsim {

std::vector<PolicyReport> replay(const ReplayRequest& request) {
  const auto policies = make_policies(request.policies, request.platform, request.platform_name);
  check_gpu_sharing(policies, request.jobs, request.sim.sharing);
  return run_policies(policies, request.platform, request.jobs, request.sim, request.outputs,
                      request.processes);
}

}  // namespace nvlsim
