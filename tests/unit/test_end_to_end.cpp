// End-to-end runs of the nvlsim binary on the sample traces, checking the invariants every replay
// must keep whatever the policy.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "nvlsim_process.hpp"
#include "schedulers/policy_registry.hpp"
#include "two_rack_replay.hpp"
#include "workloads/swf_reader.hpp"

using namespace nvlsim::test;

namespace {

std::vector<int> parse_intervals(const std::string& text) {
  std::vector<int> ids;
  std::istringstream in(text);
  std::string part;
  while (in >> part) {
    const auto dash = part.find('-');
    const int a = std::stoi(part.substr(0, dash));
    const int b = dash == std::string::npos ? a : std::stoi(part.substr(dash + 1));
    for (int i = a; i <= b; ++i) ids.push_back(i);
  }
  return ids;
}

// Checks the invariants of jobs.csv for every policy in it; returns rows per policy.
std::map<std::string, std::size_t> check_invariants(const CsvTable& jobs) {
  std::map<std::string, std::size_t> rows_per_policy;
  std::map<std::pair<std::string, int>, std::vector<std::pair<double, double>>> busy;  // (policy, gpu)
  for (std::size_t r = 0; r < jobs.rows.size(); ++r) {
    const std::string& policy = jobs.at(r, "policy");
    ++rows_per_policy[policy];
    if (jobs.at(r, "final_state") == "REJECTED") {
      CHECK(jobs.at(r, "starting_time").empty());
      CHECK_FALSE(jobs.at(r, "reason").empty());
      continue;
    }
    const double submit = jobs.num(r, "submission_time");
    const double start = jobs.num(r, "starting_time");
    const double finish = jobs.num(r, "finish_time");
    CHECK(start >= submit);
    CHECK(finish >= start);
    const auto gpus = parse_intervals(jobs.at(r, "allocated_resources"));
    CHECK(static_cast<double>(gpus.size()) == jobs.num(r, "requested_number_of_resources"));
    for (int g : gpus) busy[{policy, g}].push_back({start, finish});
    // A job inside one healthy NVLink domain runs exactly its trace run time.
    if (jobs.at(r, "domains") == "1" && jobs.at(r, "final_state") == "COMPLETED_SUCCESSFULLY") {
      const double t = jobs.num(r, "trace_run_time");
      CHECK(std::abs(jobs.num(r, "execution_time") - t) <= 1e-6 * std::max(1.0, t));
    }
  }
  for (auto& [key, intervals] : busy) {
    std::sort(intervals.begin(), intervals.end());
    for (std::size_t i = 1; i < intervals.size(); ++i) {
      INFO("policy " << key.first << " GPU " << key.second);
      CHECK(intervals[i].first >= intervals[i - 1].second);
    }
  }
  return rows_per_policy;
}

std::size_t trace_jobs(const std::string& path) {
  return nvlsim::read_swf(path).records.size();
}

}  // namespace

TEST_CASE("sample traces replay under per-gpu with every invariant", "[e2e]") {
  const std::string platform = std::string(NVLSIM_SOURCE_DIR) + "/platforms/nvl72x8.xml";
  for (const char* name : {"NASA-iPSC-1993-3.1-cln.swf.gz", "theta_100.swf", "CQSim-test.swf"}) {
    SECTION(name) {
      const auto dir = scratch_dir(std::string("e2e-") + name);
      const auto r = run_nvlsim("--quiet --platform " + platform + " --trace " + data_file(name) +
                                    " --policy per-gpu --out " + (dir / "out").string(),
                                dir);
      INFO(r.err);
      REQUIRE(r.status == 0);
      const auto jobs = read_csv((dir / "out/jobs.csv").string());
      const auto rows = check_invariants(jobs);
      REQUIRE(rows.size() == 1);
      CHECK(rows.at("per-gpu") == trace_jobs(data_file(name)));
      const auto summary = read_csv((dir / "out/summary.csv").string());
      REQUIRE(summary.rows.size() == 1);
      CHECK(summary.num(0, "nb_jobs") == static_cast<double>(trace_jobs(data_file(name))));
      CHECK(summary.num(0, "nb_jobs_success") + summary.num(0, "nb_jobs_killed") +
                summary.num(0, "nb_jobs_rejected") ==
            summary.num(0, "nb_jobs"));
    }
  }
}

TEST_CASE("two runs with the same inputs and seed give byte-identical CSV", "[e2e]") {
  const auto dir = scratch_dir("determinism");
  for (const char* out : {"a", "b"}) {
    const auto r = run_nvlsim("--quiet --seed 7 --out " + (dir / out).string(), dir);
    REQUIRE(r.status == 0);
  }
  for (const char* file : {"jobs.csv", "summary.csv"}) {
    const auto a = slurp((dir / "a" / file).string());
    CHECK(!a.empty());
    CHECK(a == slurp((dir / "b" / file).string()));
  }
}

TEST_CASE("nvlsim with no arguments compares per-gpu, block and sub-block on the built-in defaults",
          "[e2e]") {
  const auto dir = scratch_dir("defaults");
  const std::string cmd = "cd " + dir.string() + " && " + NVLSIM_BINARY + " > table.txt 2>/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const auto table = slurp((dir / "table.txt").string());
  CHECK(table.find("policy") == 0);
  CHECK(table.find("change against per-gpu") != std::string::npos);
  const auto jobs = read_csv((dir / "nvlsim-out/jobs.csv").string());
  const auto rows = check_invariants(jobs);
  CHECK(rows == std::map<std::string, std::size_t>{{"per-gpu", 400}, {"block", 400}, {"sub-block", 400}});
  const auto summary = read_csv((dir / "nvlsim-out/summary.csv").string());
  REQUIRE(summary.rows.size() == 3);
  CHECK(summary.at(0, "policy") == "per-gpu");
  CHECK(summary.at(1, "policy") == "block");
  CHECK(summary.at(2, "policy") == "sub-block");
}

TEST_CASE("a broken trace line stops the run with FILE:LINE: field and status 2", "[e2e][errors]") {
  const auto dir = scratch_dir("broken-trace");
  const auto trace = dir / "broken.swf";
  std::ofstream(trace) << "; MaxProcs: 8\n"
                          "1 0 -1 10 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n"
                          "2 5 -1 10 four -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n";
  auto r = run_nvlsim("--quiet --trace " + trace.string() + " --out " + (dir / "out").string(), dir);
  CHECK(r.status == 2);
  CHECK(r.err == trace.string() + ":3: field 5 (allocated processors): expected an integer, got \"four\"\n");

  r = run_nvlsim("--quiet --skip-bad-lines --trace " + trace.string() + " --out " + (dir / "out").string(),
                 dir);
  CHECK(r.status == 0);
  CHECK(r.err.find("skipped 1 bad trace line") != std::string::npos);
  CHECK(slurp((dir / "out/run.json").string()).find("\"skipped_lines\": 1") != std::string::npos);
}

TEST_CASE("bad flags and broken platform files are named, with status 2", "[e2e][errors]") {
  const auto dir = scratch_dir("bad-input");
  auto r = run_nvlsim("--frobnicate", dir);
  CHECK(r.status == 2);
  CHECK(r.err == "nvlsim: --frobnicate: unknown option (see nvlsim run --help)\n");
  r = run_nvlsim("--comm-fraction 1.5", dir);
  CHECK(r.status == 2);
  r = run_nvlsim("--policy no-such-policy", dir);
  CHECK(r.status == 2);
  CHECK(r.err.find("no-such-policy") != std::string::npos);

  const auto broken = dir / "broken.xml";
  std::ofstream(broken)
      << "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n";
  r = run_nvlsim("--platform " + broken.string(), dir);
  CHECK(r.status == 2);
  CHECK(r.err.rfind(broken.string() + ":", 0) == 0);

  // A valid SimGrid file that is not an nvlsim platform.
  const auto foreign = dir / "foreign.xml";
  std::ofstream(foreign)
      << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
         "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">"
         "<host id=\"h\" speed=\"1f\"/></zone></platform>\n";
  r = run_nvlsim("--platform " + foreign.string(), dir);
  CHECK(r.status == 2);
  CHECK(r.err == foreign.string() +
                     ": property nvlsim.format_version: missing (is this an nvlsim platform? "
                     "`nvlsim platform` writes one)\n");
}

TEST_CASE("a platform property with a bad value is named with the file", "[e2e][errors]") {
  const auto dir = scratch_dir("bad-property");
  std::string xml = slurp(std::string(NVLSIM_SOURCE_DIR) + "/platforms/nvl72x2.xml");
  const std::string good = "id=\"nvlsim.domains\" value=\"2\"";
  REQUIRE(xml.find(good) != std::string::npos);
  xml.replace(xml.find(good), good.size(), "id=\"nvlsim.domains\" value=\"two\"");
  const auto file = dir / "p.xml";
  std::ofstream(file) << xml;
  const auto r = run_nvlsim("--platform " + file.string(), dir);
  CHECK(r.status == 2);
  CHECK(r.err == file.string() + ": property nvlsim.domains: expected an integer, got \"two\"\n");
}

TEST_CASE("jobs that cannot run are REJECTED rows with a reason", "[e2e]") {
  const auto out = replay_on_two_racks(scratch_dir("rejected"),
                                       "1 0 -1 10 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n"
                                       "2 0 -1 10 0 -1 -1 0 100 -1 1 1 1 1 1 1 -1 -1\n"
                                       "3 0 -1 10 999 -1 -1 999 100 -1 1 1 1 1 1 1 -1 -1\n"
                                       "4 0 -1 -1 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n",
                                       "--policy per-gpu");
  const auto jobs = read_csv((out / "jobs.csv").string());
  REQUIRE(jobs.rows.size() == 4);
  CHECK(jobs.at(0, "final_state") == "COMPLETED_SUCCESSFULLY");
  CHECK(jobs.at(1, "reason") == "requests no GPUs");
  CHECK(jobs.at(2, "reason") == "requests 999 GPUs, the platform has 144");
  CHECK(jobs.at(3, "reason") == "run time unknown in the trace");
  for (std::size_t i = 1; i < 4; ++i) CHECK(jobs.at(i, "final_state") == "REJECTED");
}

TEST_CASE("a job past its time limit is killed there unless --no-walltime-kill", "[e2e]") {
  const auto dir = scratch_dir("walltime");
  const auto trace = dir / "t.swf";
  // Runs 500 s in the trace but asked for 300 s.
  std::ofstream(trace) << "1 0 -1 500 8 -1 -1 8 300 -1 1 1 1 1 1 1 -1 -1\n";
  const std::string base = "--quiet --trace " + trace.string();
  auto r = run_nvlsim(base + " --out " + (dir / "kill").string(), dir);
  REQUIRE(r.status == 0);
  auto jobs = read_csv((dir / "kill/jobs.csv").string());
  CHECK(jobs.at(0, "final_state") == "COMPLETED_WALLTIME_REACHED");
  CHECK(jobs.num(0, "execution_time") == 300);
  r = run_nvlsim(base + " --no-walltime-kill --out " + (dir / "nokill").string(), dir);
  REQUIRE(r.status == 0);
  jobs = read_csv((dir / "nokill/jobs.csv").string());
  CHECK(jobs.at(0, "final_state") == "COMPLETED_SUCCESSFULLY");
  CHECK(jobs.num(0, "execution_time") == Approx(500).epsilon(1e-9));
}

TEST_CASE("an 8-GPU job split 4+4 across racks by per-gpu runs 1.455 T with bw_efficiency 0.40",
          "[e2e][physics]") {
  // 68 GPUs fill trays 0-16 of rack 0; the 8-GPU job then takes tray 17 and tray 18 (first of rack 1).
  const auto out = replay_on_two_racks(scratch_dir("split"),
                                       "1 0 -1 100000 68 -1 -1 68 200000 -1 1 1 1 1 1 1 -1 -1\n"
                                       "2 1 -1 1000 8 -1 -1 8 5000 -1 1 1 1 1 1 1 -1 -1\n",
                                       "--policy per-gpu --comm-fraction 0.3");
  const auto jobs = read_csv((out / "jobs.csv").string());
  REQUIRE(jobs.at(1, "allocated_resources") == "68-75");
  CHECK(jobs.at(1, "domains") == "2");
  // 0.7 T + 0.3 T x t(4+4)/t(8), as NCCL runs them: t(4+4) = S/(4 x 48e9), the NIC level of NVLSTree
  // (4 NICs at 96% of 50 GB/s, the message once each way) hiding its NVLink level; t(8) = 2(7/8)S/846e9
  // with NVLS (94% of 900 GB/s).
  const double ratio = (1.0 / (4 * 48e9)) / (2 * 0.875 / 846e9);
  CHECK(jobs.num(1, "execution_time") == Approx(1000 * (0.7 + 0.3 * ratio)).epsilon(1e-9));
  CHECK(jobs.num(1, "execution_time") == Approx(1455).epsilon(0.01));
  CHECK(jobs.num(1, "bw_efficiency") == Approx(1 / ratio).epsilon(1e-9));
  CHECK(jobs.num(1, "bw_efficiency") == Approx(0.397).epsilon(0.01));
}

TEST_CASE("shipped platforms are what `nvlsim platform` writes", "[platform]") {
  const auto dir = scratch_dir("platforms");
  for (int racks : {2, 8, 64}) {
    const auto file = dir / ("nvl72x" + std::to_string(racks) + ".xml");
    REQUIRE(run_nvlsim("platform --racks " + std::to_string(racks) + " -o " + file.string(), dir).status ==
            0);
    CHECK(slurp(file.string()) ==
          slurp(std::string(NVLSIM_SOURCE_DIR) + "/platforms/nvl72x" + std::to_string(racks) + ".xml"));
  }
}

TEST_CASE("nvlsim platform --write-topology writes the leaves `tree` uses, named as the platform",
          "[platform]") {
  const auto dir = scratch_dir("platform-topology");
  const auto conf = dir / "topology.conf";
  REQUIRE(
      run_nvlsim("platform --racks 2 --ib-switch-radix 16 --write-topology " + conf.string(), dir).status ==
      0);
  // A radix-16 leaf serves 8 trays: 36 trays make 4 full leaves and one of 4 per rail, 20 leaves in all,
  // more than a 16-port spine layer reaches: pods of 8 leaves (2 tray groups x 4 rails) under a core.
  CHECK(slurp(conf.string()) ==
        "# Written by nvlsim: the switches its tree policy places under.\n"
        "SwitchName=leaf0 Nodes=tray-[0-7]\nSwitchName=leaf1 Nodes=tray-[8-15]\n"
        "SwitchName=leaf2 Nodes=tray-[16-23]\nSwitchName=leaf3 Nodes=tray-[24-31]\n"
        "SwitchName=leaf4 Nodes=tray-[32-35]\nSwitchName=spine0 Switches=leaf[0-1]\n"
        "SwitchName=spine1 Switches=leaf[2-3]\nSwitchName=spine2 Switches=leaf4\n"
        "SwitchName=core Switches=spine[0-2]\n");
  const auto named = dir / "named.conf";
  REQUIRE(
      run_nvlsim("platform --racks 2 --node-names gb[01-02]n[01-18] --write-topology " + named.string(), dir)
          .status == 0);
  CHECK_THAT(slurp(named.string()), Catch::Matchers::Contains("SwitchName=leaf1 Nodes=gb02n[15-18]"));
  CHECK(run_nvlsim("platform --racks 2 --node-names gb[01-02] --write-topology " + named.string(), dir)
            .status == 2);
}

namespace {

// Under whole-block scheduling no two jobs share a rack at the same time.
void check_racks_exclusive(const CsvTable& jobs, const std::string& policy) {
  std::map<int, std::vector<std::pair<double, double>>> busy;
  for (std::size_t r = 0; r < jobs.rows.size(); ++r) {
    if (jobs.at(r, "policy") != policy || jobs.at(r, "final_state") == "REJECTED") continue;
    std::vector<int> racks;
    for (int g : parse_intervals(jobs.at(r, "allocated_resources"))) racks.push_back(g / 72);
    racks.erase(std::unique(racks.begin(), racks.end()), racks.end());
    for (int rack : racks) busy[rack].push_back({jobs.num(r, "starting_time"), jobs.num(r, "finish_time")});
  }
  for (auto& [rack, intervals] : busy) {
    std::sort(intervals.begin(), intervals.end());
    for (std::size_t i = 1; i < intervals.size(); ++i) {
      INFO(policy << " rack " << rack);
      CHECK(intervals[i].first >= intervals[i - 1].second);
    }
  }
}

}  // namespace

TEST_CASE("policy all compares every policy in one call, each keeping the invariants", "[e2e][policies]") {
  const std::string platform = std::string(NVLSIM_SOURCE_DIR) + "/platforms/nvl72x8.xml";
  for (const char* name : {"NASA-iPSC-1993-3.1-cln.swf.gz", "theta_100.swf"}) {
    SECTION(name) {
      const auto dir = scratch_dir(std::string("all-") + name);
      const auto r = run_nvlsim("--quiet --platform " + platform + " --trace " + data_file(name) +
                                    " --policy all --out " + (dir / "out").string(),
                                dir);
      INFO(r.err);
      REQUIRE(r.status == 0);
      const auto jobs = read_csv((dir / "out/jobs.csv").string());
      const auto rows = check_invariants(jobs);
      const std::size_t n = trace_jobs(data_file(name));
      // One set of rows per registered policy, every one replaying the whole trace.
      const auto names = nvlsim::policy_names();
      REQUIRE(rows.size() == names.size());
      for (const std::string& policy : names) {
        INFO(policy);
        REQUIRE(rows.contains(policy));
        CHECK(rows.at(policy) == n);
      }
      // A job of at most 18 trays never spans two racks under the block policies.
      for (std::size_t i = 0; i < jobs.rows.size(); ++i) {
        const std::string& policy = jobs.at(i, "policy");
        if ((policy == "block" || policy == "sub-block") && jobs.at(i, "final_state") != "REJECTED" &&
            jobs.num(i, "requested_number_of_resources") <= 72)
          CHECK(jobs.at(i, "domains") == "1");
      }
      check_racks_exclusive(jobs, "block");
      const auto summary = read_csv((dir / "out/summary.csv").string());
      REQUIRE(summary.rows.size() == names.size());
      for (std::size_t i = 0; i < names.size(); ++i)
        CHECK(summary.at(i, "policy") == names[i]);  // "all"'s order
    }
  }
}

TEST_CASE("a Slurm topology file and a JSON policy file drive the block policies", "[e2e][policies]") {
  const auto dir = scratch_dir("topology");
  const auto platform = dir / "x2.xml";
  REQUIRE(run_nvlsim("platform --racks 2 --node-names gb[1-2]n[01-18] -o " + platform.string(), dir).status ==
          0);
  // Blocks of 9 nodes (half racks), as a site might declare them; placeholders keep alignment.
  const auto topology = dir / "topology.conf";
  std::ofstream(topology) << "# two half-rack blocks per rack\n"
                             "BlockName=b1 Nodes=gb1n[01-09]\nBlockName=b2 Nodes=gb1n[10-18]\n"
                             "BlockName=b3 Nodes=gb2n[01-09]\nBlockName=b4 Nodes=gb2n[10-18]\n"
                             "BlockSizes=9,18,36\n";
  const auto policies = dir / "policies.json";
  std::ofstream(policies) << R"({"policies": ["block", {"policy": "sub-block", "segment_rules": [[0, 9]]}]})";
  const auto trace = dir / "t.swf";
  // A 36-GPU job (9 nodes) fills exactly one half-rack block.
  std::ofstream(trace) << "1 0 -1 100 36 -1 -1 36 1000 -1 1 1 1 1 1 1 -1 -1\n"
                          "2 0 -1 100 36 -1 -1 36 1000 -1 1 1 1 1 1 1 -1 -1\n";
  const auto r = run_nvlsim("--quiet --platform " + platform.string() + " --topology " + topology.string() +
                                " --policy-file " + policies.string() + " --trace " + trace.string() +
                                " --out " + (dir / "out").string(),
                            dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto jobs = read_csv((dir / "out/jobs.csv").string());
  REQUIRE(jobs.rows.size() == 4);
  // Sorted by policy name: block, then sub-block:segment_rules=0>9.
  CHECK(jobs.at(0, "policy") == "block");
  CHECK(jobs.at(2, "policy") == "sub-block:segment_rules=0>9");
  for (std::size_t row = 0; row < 4; ++row) {
    const auto gpus = parse_intervals(jobs.at(row, "allocated_resources"));
    REQUIRE(gpus.size() == 36);
    // Each job lies inside one half-rack block: GPUs 0-35, 36-71, 72-107 or 108-143.
    CHECK(gpus.front() / 36 == gpus.back() / 36);
    CHECK(jobs.num(row, "starting_time") == 0);
  }
  const auto err =
      run_nvlsim("--platform " + platform.string() + " --topology " + (dir / "none.conf").string(), dir);
  CHECK(err.status == 2);
}
