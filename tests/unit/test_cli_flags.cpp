// Command-line flags: `--flag=value` as well as `--flag value`, --policy lists that add up, and no value
// silently replaced or accepted out of range.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/input_error.hpp"
#include "nvlsim_process.hpp"
#include "sim/cli_options.hpp"

using Catch::Matchers::Equals;
using nvlsim::InputError;
using nvlsim::parse_cli;

namespace {

nvlsim::CliOptions parse(std::vector<std::string> args) {
  return parse_cli(args);
}

std::string error_of(std::vector<std::string> args) {
  try {
    parse_cli(args);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("flags take --flag=value as --flag value", "[cli]") {
  const auto o = parse({"--trace=t.swf", "--seed=7", "--comm-fraction=0.25", "--out", "o"});
  CHECK(o.run.trace == std::optional<std::string>("t.swf"));
  CHECK(o.run.seed == 7);
  CHECK(o.run.sim.comm_fraction == 0.25);
  CHECK(o.run.out_dir == "o");
  // A value may itself hold '=' or start with dashes.
  CHECK(parse({"--trace", "--odd=name.swf"}).run.trace == std::optional<std::string>("--odd=name.swf"));
  CHECK(parse({"platform", "--racks=2", "-o", "x.xml"}).platform.racks == 2);
}

TEST_CASE("policy lists given with --policy add up, any other flag given twice is an error", "[cli]") {
  CHECK_THAT(parse({"--policy=per-gpu", "--policy", "block,tree"}).run.policies,
             Equals(std::vector<std::string>{"per-gpu", "block", "tree"}));
  CHECK(parse({"--policy=all"}).run.policies.size() > 1);
  CHECK(error_of({"--out", "a", "--out", "b"}) == "nvlsim: --out: given twice");
  CHECK(error_of({"--seed=1", "--seed", "2"}) == "nvlsim: --seed: given twice");
  CHECK(error_of({"platform", "--racks", "2", "--racks=3", "-o", "x"}) == "nvlsim: --racks: given twice");
}

TEST_CASE("a flag without a value refuses =value, and numbers must be finite", "[cli]") {
  CHECK(error_of({"--quiet=1"}) == "nvlsim: --quiet: takes no value, got \"1\"");
  CHECK(error_of({"--comm-fraction", "nan"}) == "nvlsim: --comm-fraction: must be a finite number, got nan");
  CHECK(error_of({"--gpu-hour-usd=inf"}) == "nvlsim: --gpu-hour-usd: must be a finite number, got inf");
  CHECK(error_of({"--seed", "-1"}).find("nvlsim: --seed: ") == 0);
  CHECK(error_of({"--trace"}) == "nvlsim: --trace: needs a value");
}

TEST_CASE("an output that cannot be written in full fails the run and keeps the previous set",
          "[cli][output]") {
  namespace fs = std::filesystem;
  const auto dir = nvlsim::test::scratch_dir("full-disk");
  const fs::path out = dir / "out";
  const std::string args = "--quiet --policy per-gpu --out " + out.string();
  REQUIRE(nvlsim::test::run_nvlsim(args, dir).status == 0);
  const std::string jobs = nvlsim::test::slurp((out / "jobs.csv").string());
  // The next run's summary.csv goes to /dev/full: every write fails as on a full disk.
  fs::create_symlink("/dev/full", out / "summary.csv.partial");
  const auto r = nvlsim::test::run_nvlsim(args + " --seed 2", dir);
  CHECK(r.status == 1);
  CHECK(r.err == "nvlsim: " + (out / "summary.csv").string() + ": write failed: No space left on device\n");
  // Nothing of the failed run is left, and the previous run's files are whole.
  CHECK(nvlsim::test::slurp((out / "jobs.csv").string()) == jobs);
  for (const auto& entry : fs::directory_iterator(out)) CHECK(entry.path().extension() != ".partial");
}

TEST_CASE("an --out that cannot be written is reported before the simulation", "[cli][output]") {
  const auto dir = nvlsim::test::scratch_dir("bad-out");
  std::ofstream(dir / "file") << "x";
  const auto r = nvlsim::test::run_nvlsim("--quiet --out " + (dir / "file/sub").string(), dir);
  CHECK(r.status == 2);
  CHECK(r.err.find((dir / "file/sub").string() + ": cannot create directory") == 0);
}

TEST_CASE("a terminated run says so, ends by the signal and writes nothing", "[cli][output]") {
  const auto dir = nvlsim::test::scratch_dir("terminated");
  // Loading 256 racks takes well over the 0.3 s before the signal, even on a fast machine.
  const std::string cmd =
      "cd " + dir.string() + " && (" + NVLSIM_BINARY +
      " --quiet --platform nvl72x256 --out out 2>err.txt & pid=$!; sleep 0.3; kill -TERM $pid;"
      " wait $pid; echo $? >status.txt)";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(nvlsim::test::slurp((dir / "status.txt").string()) == "143\n");
  CHECK(nvlsim::test::slurp((dir / "err.txt").string()) ==
        "\nnvlsim: terminated (SIGTERM): no output written\n");
  CHECK_FALSE(std::filesystem::exists(dir / "out/jobs.csv"));
}
