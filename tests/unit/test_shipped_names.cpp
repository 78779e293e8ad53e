// The names the README tells users to run resolve from any directory: a bare nvl72xN[.xml] is the
// built-in platform and a bare mix.swf the shipped week, unless a file of that name is there.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include "nvlsim_process.hpp"
#include "sim/cli/shipped_names.hpp"

using namespace nvlsim::test;
namespace fs = std::filesystem;

namespace {

const std::string kSource = NVLSIM_SOURCE_DIR;

// nvlsim run from inside `dir`, so bare names are looked up there.
int run_in(const fs::path& dir, const std::string& args) {
  const std::string cmd =
      "cd " + dir.string() + " && " + NVLSIM_BINARY + " --quiet " + args + " >stdout.txt 2>stderr.txt";
  const int raw = std::system(cmd.c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

}  // namespace

TEST_CASE("bare shipped names resolve to built-in platforms and the shipped week", "[cli]") {
  const auto dir = scratch_dir("shipped-names");
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  CHECK(nvlsim::builtin_platform_racks("nvl72x64.xml") == 64);
  CHECK(nvlsim::builtin_platform_racks("nvl72x2") == 2);
  CHECK_FALSE(nvlsim::builtin_platform_racks("nvl72x0.xml").has_value());
  CHECK_FALSE(nvlsim::builtin_platform_racks("nvl72x08.xml").has_value());
  CHECK_FALSE(nvlsim::builtin_platform_racks("nvl72x4097").has_value());
  CHECK_FALSE(nvlsim::builtin_platform_racks("nvl72x2.xml.gz").has_value());
  CHECK_FALSE(nvlsim::builtin_platform_racks("platforms/nvl72x2.xml").has_value());
  CHECK(nvlsim::is_shipped_mix("mix.swf"));
  CHECK_FALSE(nvlsim::is_shipped_mix("workloads/mix.swf"));
  std::ofstream("nvl72x2.xml") << "not a platform";
  std::ofstream("mix.swf") << "";
  CHECK_FALSE(nvlsim::builtin_platform_racks("nvl72x2.xml").has_value());  // an existing file wins
  CHECK_FALSE(nvlsim::is_shipped_mix("mix.swf"));
  fs::current_path(cwd);
}

TEST_CASE("nvlsim --platform nvl72x64.xml --trace mix.swf replays the shipped files from anywhere", "[cli]") {
  const auto dir = scratch_dir("shipped-run");
  REQUIRE(run_in(dir, "--platform nvl72x64.xml --trace mix.swf --policy sub-block --out named") == 0);
  REQUIRE(run_in(dir, "--platform " + kSource + "/platforms/nvl72x64.xml --trace " + kSource +
                          "/workloads/mix.swf --policy sub-block --out files") == 0);
  for (const char* file : {"jobs.csv", "summary.csv", "timeseries.csv"})
    CHECK(slurp((dir / "named" / file).string()) == slurp((dir / "files" / file).string()));
  CHECK_THAT(slurp((dir / "named/run.json").string()), Catch::Matchers::Contains("built-in nvl72x64"));

  // A file of that name in the working directory is read, not replaced.
  std::ofstream(dir / "mix.swf") << "1 0 -1 100 4 -1 -1 4 200 -1 1 -1 -1 -1 -1 -1 -1 -1\n";
  REQUIRE(run_in(dir, "--platform nvl72x2 --trace mix.swf --policy per-gpu --out local") == 0);
  CHECK(read_csv((dir / "local/jobs.csv").string()).rows.size() == 1);
  // Other absent names stay errors.
  CHECK(run_in(dir, "--platform nvl72x2.xm --trace mix.swf") == 2);
  CHECK(run_in(dir, "--platform nvl72x2 --trace mixes.swf") == 2);
}
