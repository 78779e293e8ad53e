// Request shapes, run side: the settings (--request-shape, --cpus-per-gpu) reach admission, the driver
// and run.json, and a job rounded up to whole trays runs on all of their GPUs.

#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "nvlsim_process.hpp"
#include "schedulers/policy_registry.hpp"
#include "sim/admission.hpp"
#include "sim/core/job_requests.hpp"

using namespace nvlsim::test;
using nvlsim::Job;
using nvlsim::JobRequest;
using nvlsim::RequestShape;
using nvlsim::RequestShaping;
using nvlsim::SimulationConfig;

namespace {

constexpr nvlsim::ClusterShape kTwoRacks{2, 18, 4};  // 144 GPUs

SimulationConfig config_of(RequestShaping shaping, int cpus_per_gpu = 0) {
  SimulationConfig config;
  config.request_shaping = shaping;
  config.cpus_per_gpu = cpus_per_gpu;
  return config;
}

// GPUs in a Batsim interval set such as "0-7 72".
int count_gpus(const std::string& intervals) {
  int n = 0;
  std::istringstream in(intervals);
  for (std::string part; in >> part;) {
    const auto dash = part.find('-');
    n += dash == std::string::npos ? 1
                                   : std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
  }
  return n;
}

Job job_of(int gpus) {
  Job job;
  job.gpus = gpus;
  job.run_time = 100;
  return job;
}

}  // namespace

TEST_CASE("the run's settings shape each job's request", "[requests]") {
  const auto request = [](int gpus, RequestShaping shaping, int cpus = 0) {
    return nvlsim::request_of(job_of(gpus), config_of(shaping, cpus), kTwoRacks);
  };
  CHECK(SimulationConfig{}.request_shaping == RequestShaping::auto_);  // nvlsim's default
  CHECK(SimulationConfig{}.cpus_per_gpu == 0);
  CHECK(request(8, RequestShaping::auto_) == JobRequest{8, RequestShape::nodes, 0});
  CHECK(request(5, RequestShaping::auto_) == JobRequest{5, RequestShape::gpus, 0});  // never rounded
  CHECK(request(8, RequestShaping::gpus) == JobRequest{8, RequestShape::gpus, 0});
  CHECK(request(5, RequestShaping::nodes, 8) == JobRequest{8, RequestShape::nodes, 8});  // ceil(5/4) trays
}

TEST_CASE("admission tests the shaped request and names a rounding in its reason", "[requests]") {
  const auto policy = nvlsim::make_policy("per-gpu", nvlsim::PolicyContext{kTwoRacks});
  const SimulationConfig nodes = config_of(RequestShaping::nodes);
  nvlsim::Admission admission(*policy, kTwoRacks, nodes);
  CHECK(admission.rejection_reason(job_of(143)).empty());  // 36 trays: the whole machine
  CHECK(admission.rejection_reason(job_of(144)).empty());
  CHECK(admission.rejection_reason(job_of(145)) ==
        "requests 145 GPUs (148 in whole trays), the platform has 144");
  const SimulationConfig by_gpus = config_of(RequestShaping::gpus);
  nvlsim::Admission plain(*policy, kTwoRacks, by_gpus);
  CHECK(plain.rejection_reason(job_of(145)) == "requests 145 GPUs, the platform has 144");
}

TEST_CASE("under --request-shape nodes a job rounded up to whole trays runs on all of them",
          "[e2e][requests]") {
  const auto dir = scratch_dir("request-nodes");
  const auto trace = dir / "t.swf";
  std::ofstream(trace) << "1 0 -1 100 5 -1 -1 5 200 -1 1 1 1 1 1 1 -1 -1\n";
  const std::string base = "--quiet --platform " + std::string(NVLSIM_SOURCE_DIR) +
                           "/platforms/nvl72x2.xml --trace " + trace.string() + " --out ";
  for (const char* shape : {"nodes", "gpus", "auto"}) {
    SECTION(shape) {
      const auto out = dir / shape;
      const auto r =
          run_nvlsim(base + out.string() + " --request-shape " + shape + " --cpus-per-gpu 36", dir);
      INFO(r.err);
      REQUIRE(r.status == 0);
      const auto jobs = read_csv((out / "jobs.csv").string());
      CHECK(jobs.num(0, "requested_number_of_resources") == 5);  // the trace's count
      const bool whole = std::string(shape) == "nodes";
      CHECK(count_gpus(jobs.at(0, "allocated_resources")) == (whole ? 8 : 5));
      // Inside one rack it runs its trace run time, the collective planned over the GPUs it holds.
      CHECK(jobs.at(0, "final_state") == "COMPLETED_SUCCESSFULLY");
      CHECK(jobs.num(0, "execution_time") == Approx(100).epsilon(1e-9));
      CHECK(jobs.num(0, "bw_efficiency") == Approx(1).epsilon(1e-9));
      const auto manifest = nlohmann::json::parse(slurp((out / "run.json").string()));
      CHECK(manifest["job_model"]["request_shape"] == shape);
      CHECK(manifest["job_model"]["cpus_per_gpu"] == 36);
    }
  }
}

TEST_CASE("request flags are checked, naming the flag, with exit status 2", "[e2e][requests][errors]") {
  const auto dir = scratch_dir("request-errors");
  auto r = run_nvlsim("--quiet --request-shape trays", dir);
  CHECK(r.status == 2);
  CHECK(r.err == "nvlsim: --request-shape: expected gpus, nodes or auto, got \"trays\"\n");
  r = run_nvlsim("--quiet --cpus-per-gpu 37", dir);  // 4 x 37 cores exceed a tray's 144
  CHECK(r.status == 2);
  CHECK(r.err ==
        "nvlsim: --cpus-per-gpu: must be between 0 and 36 (144 CPUs per tray over 4 GPUs), got 37\n");
  for (const char* value : {"-1", "2.5", "many"}) {
    r = run_nvlsim(std::string("--quiet --cpus-per-gpu ") + value, dir);
    CHECK(r.status == 2);
    CHECK(r.err.find("nvlsim: --cpus-per-gpu: ") == 0);
  }
  const auto manifest_dir = dir / "defaults";
  r = run_nvlsim("--quiet --out " + manifest_dir.string(), dir);
  REQUIRE(r.status == 0);
  const auto manifest = nlohmann::json::parse(slurp((manifest_dir / "run.json").string()));
  CHECK(manifest["job_model"]["request_shape"] == "auto");
  CHECK(manifest["job_model"]["cpus_per_gpu"] == 0);
}
