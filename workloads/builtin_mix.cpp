#include "workloads/builtin_mix.hpp"

#include "workloads/job_class.hpp"
#include "workloads/trace_jobs.hpp"

namespace nvlsim {

namespace {

constexpr int kShippedMixDomains = 64;
constexpr int kDefaultJobs = 400;

}  // namespace

MixParams default_mix_params(int domains, int gpus, std::uint64_t seed) {
  MixParams params = shipped_mix_params();
  if (domains != kShippedMixDomains || gpus != params.gpus) {
    params.days = 0;
    params.jobs = kDefaultJobs;
    params.gpus = gpus;
  }
  params.seed = seed;
  return params;
}

SwfTrace builtin_mix_trace(const MixParams& params) {
  GeneratedMix mix = generate_mix(params);
  SwfTrace trace;
  trace.path = "built-in mix";
  trace.header.entries = std::move(mix.header);
  trace.records = std::move(mix.records);
  // Line numbers as in the file `nvlsim workload mix` writes: the header, then one line per record.
  for (std::size_t i = 0; i < trace.records.size(); ++i)
    trace.record_lines.push_back(trace.header.entries.size() + i + 1);
  return trace;
}

std::vector<Job> builtin_mix(const MixOptions& options) {
  MixParams params = default_mix_params(0, options.platform_gpus, options.seed);
  params.jobs = options.jobs;
  params.load = options.load;
  const ClassTable classes = builtin_class_table();
  return jobs_from_swf(builtin_mix_trace(params), {1, &classes});
}

}  // namespace nvlsim
