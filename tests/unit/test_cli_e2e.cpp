// The command line as users meet it: generated help for every command, --policy lists that add up, and
// SimGrid's own --cfg/--log reaching the engine of every policy's process.

#include <catch2/catch.hpp>

#include <string>

#include "nvlsim_process.hpp"
#include "schedulers/policy_registry.hpp"

using namespace nvlsim::test;

namespace {

// The policy column of summary.csv, in order.
std::string policies_of(const std::filesystem::path& out) {
  const CsvTable t = read_csv((out / "summary.csv").string());
  std::string names;
  for (std::size_t i = 0; i < t.rows.size(); ++i) names += t.at(i, "policy") + " ";
  return names;
}

}  // namespace

TEST_CASE("every command has a generated help on stdout and exits 0", "[cli][e2e]") {
  const auto dir = scratch_dir("cli-help");
  for (const char* command : {"", "run ", "platform ", "workload ", "workload mix ", "workload convert ",
                              "probe ", "sweep ", "sweep collect ", "sweep run-one "}) {
    const auto r = run_nvlsim(std::string(command) + "--help", dir);
    INFO(command << r.err);
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("Usage: nvlsim " + std::string(command)) != std::string::npos);
  }
  const auto v = run_nvlsim("--version", dir);
  CHECK(v.status == 0);
  CHECK(v.out == std::string(NVLSIM_VERSION) + "\n");
}

TEST_CASE("policies given with several --policy flags all run, in order", "[cli][e2e]") {
  const auto dir = scratch_dir("cli-policies");
  auto r = run_nvlsim("--quiet --platform nvl72x2 --policy block --policy=tree --out " + (dir / "a").string(),
                      dir);
  REQUIRE(r.status == 0);
  CHECK(policies_of(dir / "a") == "block tree ");
  r = run_nvlsim("--quiet --platform nvl72x2 --policy=all --out " + (dir / "b").string(), dir);
  REQUIRE(r.status == 0);
  std::string every;  // "all" is every registered policy, in registry order
  for (const std::string& name : nvlsim::policy_names()) every += name + " ";
  CHECK(policies_of(dir / "b") == every);
  r = run_nvlsim(
      "--quiet --platform nvl72x2 --out " + (dir / "c").string() + " --out " + (dir / "d").string(), dir);
  CHECK(r.status == 2);
  CHECK(r.err == "nvlsim: --out: given twice\n");
}

TEST_CASE("SimGrid's --cfg and --log reach the engine that replays each policy", "[cli][e2e][simgrid]") {
  const auto dir = scratch_dir("cli-simgrid");
  const std::string run = "--quiet --platform nvl72x2 --policy per-gpu,sub-block --out ";
  REQUIRE(run_nvlsim(run + (dir / "default").string(), dir).status == 0);
  // nvlsim's own setting given again changes nothing; the log threshold only silences SimGrid.
  auto r =
      run_nvlsim(run + (dir / "same").string() + " --cfg=network/model:CM02 --log=root.thres:critical", dir);
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  CHECK(slurp((dir / "same/summary.csv").string()) == slurp((dir / "default/summary.csv").string()));
  // LV08's bandwidth and latency factors slow every transfer: the children replayed on that model.
  r = run_nvlsim(run + (dir / "lv08").string() + " --cfg network/model:LV08", dir);
  REQUIRE(r.status == 0);
  const CsvTable lv08 = read_csv((dir / "lv08/summary.csv").string());
  const CsvTable cm02 = read_csv((dir / "default/summary.csv").string());
  REQUIRE(lv08.rows.size() == 2);
  for (std::size_t i = 0; i < lv08.rows.size(); ++i)
    CHECK(lv08.num(i, "bw_utilization") < cm02.num(i, "bw_utilization"));
  // What SimGrid refuses is an input error naming the flag, before any output.
  r = run_nvlsim(run + (dir / "bad").string() + " --cfg=nonsense:1", dir);
  CHECK(r.status == 2);
  CHECK(r.err == "nvlsim: --cfg: Bad config key: nonsense\n");
  CHECK_FALSE(std::filesystem::exists(dir / "bad/summary.csv"));
  r = run_nvlsim("--quiet --log=root.thres:loud", dir);
  CHECK(r.status == 2);
  CHECK(r.err.find("nvlsim: --log: threshold must be") == 0);
}
