#include "sim/replay.hpp"

namespace nvlsim {

std::vector<PolicyReport> replay(const ReplayRequest& request) {
  const auto policies = make_policies(request.policies, request.platform, request.platform_name);
  return run_policies(policies, request.platform, request.jobs, request.sim, request.outputs,
                      request.processes);
}

}  // namespace nvlsim
