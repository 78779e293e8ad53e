// The replay core on an analytic network (analytic_network.hpp): no SimGrid engine, times from the closed
// forms of models/collective.hpp.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "analytic_network.hpp"
#include "models/collective.hpp"
#include "sim/core/job_attempt.hpp"
#include "sim/core/replay.hpp"

namespace {

using namespace nvlsim;

// Four NVLink domains of one 4-GPU tray each, with latencies so that they count.
PlatformSpec small_platform() {
  PlatformSpec p;
  p.shape.domains = 4;
  p.shape.trays_per_domain = 1;
  p.shape.gpus_per_tray = 4;
  p.fabric.nvlink_latency = 1e-6;
  p.fabric.ib_latency = 2e-6;
  return p;
}

// The lowest free GPUs.
class FirstFree final : public PlacementPolicy {
 public:
  const std::string& name() const override { return name_; }
  std::optional<Allocation> place(const ClusterState& state, const JobRequest& request) const override {
    Allocation a;
    for (int gpu = 0; gpu < state.shape().gpus() && static_cast<int>(a.gpus.size()) < request.gpus; ++gpu)
      if (state.gpu_free(gpu)) a.gpus.push_back(gpu);
    if (static_cast<int>(a.gpus.size()) < request.gpus) return std::nullopt;
    charge_cpus(a, 0, state.shape());
    return a;
  }

 private:
  std::string name_ = "first-free";
};

SimulationConfig config(int rounds) {
  SimulationConfig c;
  c.comm_rounds = rounds;
  c.request_shaping = RequestShaping::gpus;
  return c;
}

Job job(std::int64_t id, int gpus, double run_time) {
  return {.id = id,
          .submit_time = 0,
          .gpus = gpus,
          .time_limit = std::numeric_limits<double>::infinity(),
          .run_time = run_time};
}

std::vector<JobOutcome> run(const PlatformSpec& p, const std::vector<Job>& jobs, const SimulationConfig& c,
                            test::AnalyticNetwork& network) {
  std::vector<std::size_t> admitted(jobs.size());
  std::iota(admitted.begin(), admitted.end(), std::size_t{0});
  std::vector<JobOutcome> outcomes(jobs.size());
  replay(p, jobs, admitted, FirstFree{}, c, outcomes, {}, network);
  return outcomes;
}

// The all-reduce message per GPU and round that makes the job's reference placement communicate for
// `fraction` of each round (job_attempt.hpp).
double message(const PlatformSpec& p, int gpus, double work_per_round, double fraction) {
  const auto ref = reference_placement(gpus, p.shape.gpus_per_domain());
  const double fixed =
      uncontended_time(plan_collective(Collective::all_reduce, ref, 0, p.fabric).steps, p.fabric);
  const double per_byte =
      uncontended_time(plan_collective(Collective::all_reduce, ref, 1, p.fabric).steps, p.fabric) - fixed;
  return (fraction * work_per_round - fixed) / per_byte;
}

}  // namespace

TEST_CASE("replay core: a job alone finishes at the closed-form time of its placement") {
  const PlatformSpec p = small_platform();
  const SimulationConfig c = config(3);
  test::AnalyticNetwork network(p.fabric);
  // 6 GPUs land as 4 + 2 where the reference placement is 3 + 3.
  const auto out = run(p, {job(1, 6, 900)}, c, network);
  const double m = message(p, 6, 300, c.comm_fraction);
  const int actual[] = {4, 2}, ideal[] = {6};
  const double comm =
      uncontended_time(plan_collective(Collective::all_reduce, actual, m, p.fabric).steps, p.fabric);
  const double best =
      uncontended_time(plan_collective(Collective::all_reduce, ideal, m, p.fabric).steps, p.fabric);
  CHECK(out[0].state == FinalState::completed_successfully);
  CHECK(out[0].finish == Approx(3 * ((1 - c.comm_fraction) * 300 + comm)).epsilon(1e-12));
  CHECK(out[0].bw_efficiency == Approx(best / comm).epsilon(1e-9));
  CHECK(out[0].domains == 2);
}

TEST_CASE("replay core: a job on its reference placement runs for exactly its trace run time") {
  const PlatformSpec p = small_platform();
  test::AnalyticNetwork network(p.fabric);
  const auto out = run(p, {job(1, 8, 1000)}, config(2), network);
  // Not to the last bit: plan_rounds takes the cost per byte as a difference of two closed-form times.
  CHECK(out[0].finish == Approx(1000).epsilon(1e-10));
  CHECK(out[0].bw_efficiency < 1);
}

TEST_CASE("replay core: two jobs sharing an InfiniBand link each take half of it") {
  const PlatformSpec p = small_platform();
  const SimulationConfig c = config(1);
  test::AnalyticNetwork network(p.fabric, p.fabric.nic_bw);
  // Two identical 8-GPU jobs on domains 0+1 and 2+3 run their steps in lockstep; the flows between
  // domains, two per job, share the one link, while each job's NVLink flows go on beside them.
  const auto out = run(p, {job(1, 8, 1000), job(2, 8, 1000)}, c, network);
  const int counts[] = {4, 4};
  const auto steps =
      plan_collective(Collective::all_reduce, counts, message(p, 8, 1000, c.comm_fraction), p.fabric).steps;
  double comm = 0;
  for (const auto& step : steps) {
    CollectiveStep nvlink;
    double ib_bytes = 0;
    for (const auto& f : step.flows) {
      if (f.plane == Plane::nvlink)
        nvlink.flows.push_back(f);
      else
        ib_bytes += f.wire_bytes();
    }
    const double ib = ib_bytes > 0 ? 3 * p.fabric.ib_latency + 2 * ib_bytes / p.fabric.nic_bw : 0;
    comm += std::max(uncontended_time(std::span(&nvlink, 1), p.fabric), ib);
  }
  for (const JobOutcome& o : out)
    CHECK(o.finish == Approx((1 - c.comm_fraction) * 1000 + comm).epsilon(1e-12));
  CHECK(out[0].finish > 1000);
}

TEST_CASE("replay core: a job too long for one round's flows runs in more rounds, at the right time") {
  // 2147483647 s, the SWF sentinel: a single round's flows would exceed 2^63 bytes.
  const PlatformSpec p = small_platform();
  const SimulationConfig c = config(1);
  test::AnalyticNetwork network(p.fabric);
  const auto out = run(p, {job(1, 8, 2147483647.0)}, c, network);
  CHECK(network.largest_flow() <= kMaxFlowBytes);
  CHECK(out[0].finish == Approx(2147483647.0).epsilon(1e-10));
  CHECK(out[0].bw_efficiency > 0);
  CHECK(out[0].bw_efficiency <= 1);
}

TEST_CASE("plan_rounds adds rounds only when a flow would exceed the bound") {
  const PlatformSpec p = small_platform();
  const Job long_job = job(1, 8, 2147483647.0);
  Attempt a;
  a.work = long_job.run_time;
  a.group_gpus = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  a.groups = {{4, 0}, {4, 1}};
  ReferenceCosts references(p);
  plan_rounds(long_job, p, config(1), references, a);
  CHECK(a.rounds > 1);
  for (const auto& step : a.steps)
    for (const auto& f : step.flows) CHECK(f.bytes <= kMaxFlowBytes);
  // The rounds still add up to the job's work, communication at its share.
  CHECK(a.rounds * (a.compute_per_round + a.round_comm_uncontended) == Approx(a.work).epsilon(1e-10));

  Attempt b;
  b.work = 1e6;
  b.group_gpus = a.group_gpus;
  b.groups = a.groups;
  plan_rounds(job(2, 8, 1e6), p, config(3), references, b);
  CHECK(b.rounds == 3);
}

TEST_CASE("reference costs are kept apart by collective and GPU count") {
  // A cache that has answered other pairs gives what a fresh one computes.
  const PlatformSpec p = small_platform();
  ReferenceCosts used(p);
  for (const int gpus : {1, 4, 8, 16})
    for (const Collective c : {Collective::all_reduce, Collective::all_to_all}) used.of(c, gpus);
  for (const int gpus : {1, 4, 8, 16}) {
    for (const Collective c : {Collective::all_reduce, Collective::all_to_all}) {
      ReferenceCosts fresh(p);
      const ReferenceCost want = fresh.of(c, gpus);
      const ReferenceCost got = used.of(c, gpus);
      CHECK(got.fixed == want.fixed);
      CHECK(got.per_byte == want.per_byte);
    }
  }
  CHECK(used.of(Collective::all_reduce, 8).per_byte != used.of(Collective::all_to_all, 8).per_byte);
  CHECK(used.of(Collective::all_reduce, 8).per_byte != used.of(Collective::all_reduce, 16).per_byte);
}
