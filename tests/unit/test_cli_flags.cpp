// Command-line flags: `--flag=value` as well as `--flag value`, --policy lists that add up, and no value
// silently replaced or accepted out of range.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/input_error.hpp"
#include "nvlsim_process.hpp"
#include "sim/cli/cli_app.hpp"

using Catch::Matchers::Equals;
using nvlsim::Command;
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
  CHECK(o.command == Command::run);
  CHECK(o.run.trace == std::optional<std::string>("t.swf"));
  CHECK(o.run.seed == 7);
  CHECK(o.run.sim.comm_fraction == 0.25);
  CHECK(o.run.comm_fraction_given);
  CHECK_FALSE(o.run.collective_given);
  CHECK(o.run.out_dir == "o");
  // A value may itself hold '=' or start with dashes.
  CHECK(parse({"--trace", "--odd=name.swf"}).run.trace == std::optional<std::string>("--odd=name.swf"));
  CHECK(parse({"platform", "--racks=2", "-o", "x.xml"}).platform.racks == 2);
  CHECK(parse({"run", "--seed", "3"}).run.seed == 3);
  CHECK(parse({}).command == Command::run);
}

TEST_CASE("policy lists given with --policy add up, any other flag given twice is an error", "[cli]") {
  CHECK_THAT(parse({"--policy=per-gpu", "--policy", "block,tree"}).run.policies,
             Equals(std::vector<std::string>{"per-gpu", "block", "tree"}));
  CHECK(parse({"--policy=all"}).run.policies.size() > 1);
  CHECK(error_of({"--policy", "a,,b"}) == "nvlsim: --policy: empty policy name in \"a,,b\"");
  CHECK(error_of({"--out", "a", "--out", "b"}) == "nvlsim: --out: given twice");
  CHECK(error_of({"--seed=1", "--seed", "2"}) == "nvlsim: --seed: given twice");
  CHECK(error_of({"--quiet", "-q"}) == "nvlsim: --quiet: given twice");
  CHECK(error_of({"platform", "--racks", "2", "--racks=3", "-o", "x"}) == "nvlsim: --racks: given twice");
  CHECK(error_of({"probe", "--platform", "p", "--route", "1", "2", "--route", "3", "4"}) ==
        "nvlsim: --route: given twice");
}

TEST_CASE("a flag without a value refuses =value, and numbers must be finite and in range", "[cli]") {
  CHECK(error_of({"--quiet=1"}) == "nvlsim: --quiet: takes no value");
  CHECK(error_of({"--comm-fraction", "nan"}) == "nvlsim: --comm-fraction: must be a finite number, got nan");
  CHECK(error_of({"--gpu-hour-usd=inf"}) == "nvlsim: --gpu-hour-usd: must be a finite number, got inf");
  CHECK(error_of({"platform", "--nic-bw", "-inf", "-o", "x"}) ==
        "nvlsim: --nic-bw: must be a finite number, got -inf");
  CHECK(error_of({"--seed", "-1"}).find("nvlsim: --seed: ") == 0);
  CHECK(error_of({"--comm-fraction", "1.5"}) == "nvlsim: --comm-fraction: must be between 0 and 1, got 1.5");
  CHECK(error_of({"--comm-fraction", "0.5x"}) == "nvlsim: --comm-fraction: not a number: \"0.5x\"");
  CHECK(error_of({"--trace"}) == "nvlsim: --trace: needs a value");
  // An empty --flag= (an unset variable in --out=$DIR) would take the next argument as its value.
  CHECK(error_of({"--out=", "--quiet"}) == "nvlsim: --out: needs a value, got an empty one");
  CHECK(error_of({"--trace", ""}) == "nvlsim: --trace: needs a value, got an empty one");
  CHECK(error_of({"platform", "-o=", "x", "--racks=", "2"}) ==
        "nvlsim: --racks: needs a value, got an empty one");
}

TEST_CASE("integers too large for their type are out of range, not wrapped", "[cli]") {
  CHECK(error_of({"--seed", "18446744073709551616"}) ==
        "nvlsim: --seed: must be between 0 and 18446744073709551615, got 18446744073709551616");
  CHECK(error_of({"--parallel=99999999999"}) ==
        "nvlsim: --parallel: must be between 1 and 256, got 99999999999");
  CHECK(error_of({"workload", "mix", "--jobs", "4294967297", "--gpus", "8", "-o", "x"}) ==
        "nvlsim: --jobs: must be between 1 and 100000000, got 4294967297");
  CHECK(parse({"--seed", "18446744073709551615"}).run.seed == 18446744073709551615u);
}

TEST_CASE("unknown options and arguments are named with the command that refused them", "[cli]") {
  CHECK(error_of({"--frobnicate=3"}) == "nvlsim: --frobnicate: unknown option (see nvlsim run --help)");
  CHECK(error_of({"platform", "--trace", "x", "-o", "y"}) ==
        "nvlsim: --trace: unknown option (see nvlsim platform --help)");
  CHECK(error_of({"workload", "mix", "--from", "x"}) ==
        "nvlsim: --from: unknown option (see nvlsim workload mix --help)");
  CHECK(error_of({"frobnicate"}) == "nvlsim: frobnicate: unknown command (see nvlsim --help)");
  CHECK(error_of({"--policy", "a", "b"}) == "nvlsim: b: unexpected argument (see nvlsim run --help)");
  CHECK(error_of({"run", "platform"}) == "nvlsim: platform: unexpected argument (see nvlsim run --help)");
  CHECK(error_of({"workload"}) == "nvlsim: workload: expected mix or convert (see nvlsim workload --help)");
}

TEST_CASE("fit excludes procs-per-gpu, and required options are asked for", "[cli]") {
  CHECK(error_of({"--fit", "--procs-per-gpu=2"}) ==
        "nvlsim: --fit: chooses --procs-per-gpu itself; give one or the other");
  CHECK(parse({"--procs-per-gpu", "2"}).run.procs_per_gpu == std::optional<int>(2));
  CHECK_FALSE(parse({"--fit"}).run.procs_per_gpu);
  CHECK(error_of({"platform"}) ==
        "nvlsim: platform: -o FILE, --write-topology FILE or --write-block-topology FILE is required");
  CHECK(error_of({"workload", "mix", "--jobs", "3", "-o", "x"}) ==
        "nvlsim: workload mix: --gpus G is required (the machine the load is for)");
  CHECK(error_of({"workload", "convert", "--from", "philly", "-o", "x"}) ==
        "nvlsim: workload convert: an input file is required");
  CHECK(error_of({"probe", "--platform", "p"}) == "nvlsim: --gpus: give either --gpus or --route");
  CHECK(error_of({"probe", "--platform", "p", "--route", "1"}) ==
        "nvlsim: --route: needs two GPU ids, A and B");
}

TEST_CASE("SimGrid's own --cfg and --log are kept for its engine, in order", "[cli][simgrid]") {
  const auto o =
      parse({"--cfg=network/model:CM02", "--log", "root.thres:critical", "--cfg", "network/crosstraffic:1"});
  CHECK_THAT(o.run.engine_args,
             Equals(std::vector<std::string>{"--cfg=network/model:CM02", "--cfg=network/crosstraffic:1",
                                             "--log=root.thres:critical"}));
  CHECK(parse({"probe", "--platform", "p", "--route", "0", "1", "--log=root.thres:error"})
            .probe.engine_args.size() == 1);
  CHECK(error_of({"--cfg=nocolon"}) ==
        "nvlsim: --cfg: expected NAME:VALUE (SimGrid configuration), got \"nocolon\"");
  CHECK(error_of({"--log=root.thres:loud"}).find("nvlsim: --log: threshold must be") == 0);
  CHECK(error_of({"--log=root:info"}).find("nvlsim: --log: expected CATEGORY.KEY:VALUE") == 0);
  CHECK(error_of({"platform", "--cfg=a:b", "-o", "x"}) ==
        "nvlsim: --cfg: unknown option (see nvlsim platform --help)");
}

TEST_CASE("help and version are generated, exit 0 and print to stdout", "[cli]") {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--help"},
                                             {"-h"},
                                             {"run", "--help"},
                                             {"--quiet", "--help"},
                                             {"platform", "--help"},
                                             {"workload", "--help"},
                                             {"workload", "mix", "--help"},
                                             {"workload", "convert", "-h"},
                                             {"probe", "--help"}}) {
    const auto o = parse(args);
    CHECK(o.command == Command::help);
    CHECK(o.text.find("Usage: nvlsim") != std::string::npos);
  }
  CHECK(parse({"run", "--help"}).text.find("--procs-per-gpu K") != std::string::npos);
  CHECK(parse({"platform", "--help"}).text.find("--ib-switch-radix N") != std::string::npos);
  CHECK(parse({"workload", "mix", "--help"}).text.find("--overestimate F") != std::string::npos);
  CHECK(parse({"--version"}).text == std::string(NVLSIM_VERSION) + "\n");
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
  // The signal goes once the run has created its output folder (its handler is in place by then), 0.2 s
  // into loading 256 racks, which takes seconds even on a fast machine.
  const std::string cmd =
      "cd " + dir.string() + " && mkdir tmp && (TMPDIR=" + (dir / "tmp").string() + " " + NVLSIM_BINARY +
      " --quiet --platform nvl72x256 --out out 2>err.txt & pid=$!; while [ ! -d out ]; do sleep 0.02; done;"
      " sleep 0.2; kill -TERM $pid; wait $pid; echo $? >status.txt)";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(nvlsim::test::slurp((dir / "status.txt").string()) == "143\n");
  CHECK(nvlsim::test::slurp((dir / "err.txt").string()) ==
        "\nnvlsim: terminated (SIGTERM): no output written\n");
  CHECK_FALSE(std::filesystem::exists(dir / "out/jobs.csv"));
  // Nothing left in the temporary folder either (the built-in platform's file included).
  CHECK(std::filesystem::is_empty(dir / "tmp"));
}
