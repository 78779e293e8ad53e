#pragma once
// Runs several policies on the same loaded platform, each in its own child process.
// A SimGrid engine runs once per process, so the parent loads and checks the platform, then forks
// one child per policy; the children replay independently, write their rows (see policy_outputs) and
// send their reports back.

#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/policy_outputs.hpp"
#include "sim/policy_report.hpp"

namespace nvlsim {

struct ProcessOptions {
  int max_parallel = 2;        // children running at once
  bool show_progress = false;  // one status line on stderr, rewritten in place
};

// Reports in the order of `policies`; child number i writes the parts of policy i as `outputs` asks. If a
// child fails, throws what child_result() throws for the first failed policy in that order. No child
// outlives the call: if it throws, or SIGINT or SIGTERM arrives while children run, the children still
// running are killed and reaped; after a signal the parent removes the parts and then ends as that
// signal's default action says.
std::vector<PolicyReport> run_policies(std::span<const std::unique_ptr<PlacementPolicy>> policies,
                                       const LoadedPlatform& platform, std::span<const Job> jobs,
                                       const SimulationConfig& config, const OutputRequest& outputs,
                                       const ProcessOptions& options);

// A child reports on its pipe in one frame: a tag, the payload's length as 8 bytes, the payload.
enum class FrameTag : char { result = 'R', input_error = 'I', error = 'E' };
std::string frame_header(FrameTag tag, std::uint64_t payload_size);
// The frame for an exception the replay threw: an InputError's message keeps its kind.
std::string failure_frame(const std::exception& error);
// The policy's report from what its child wrote and its waitpid() status. Otherwise throws, with a
// message printed once by main: InputError with the child's message unchanged for an input error;
// std::runtime_error naming the policy for any other exception in the child, for the signal that killed
// it, or for a missing, truncated or malformed result.
PolicyReport child_result(std::string_view policy, std::string_view bytes, int wait_status);

}  // namespace nvlsim
