// The part files policies' child processes write: joined whole, and never left in the output folder.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "nvlsim_process.hpp"
#include "sim/part_files.hpp"

namespace fs = std::filesystem;
using nvlsim::PartFiles;

namespace {

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::ranges::sort(names);
  return names;
}

}  // namespace

TEST_CASE("parts are hidden in the folder, join whole even when empty, and go with their PartFiles",
          "[output][parts]") {
  const fs::path dir = nvlsim::test::scratch_dir("parts");
  std::ofstream(dir / "notes.txt") << "mine";
  {
    const PartFiles parts(dir);
    CHECK(parts.path(1, "jobs.csv").parent_path() == dir);
    CHECK(parts.path(1, "jobs.csv").filename().string().starts_with(".nvlsim-part-"));
    CHECK(parts.path(1, "jobs.csv") != parts.path(2, "jobs.csv"));
    std::ofstream(parts.path(0, "jobs.csv")) << "a,1\nb,2\n";
    std::ofstream(parts.path(1, "jobs.csv")).flush();
    std::ostringstream out;
    parts.append(out, 1, "jobs.csv");
    parts.append(out, 0, "jobs.csv");
    CHECK(out);
    CHECK(out.str() == "a,1\nb,2\n");
    CHECK_THROWS_WITH(parts.append(out, 2, "jobs.csv"), Catch::Contains("cannot read"));
  }
  CHECK(names_in(dir) == std::vector<std::string>{"notes.txt"});
}

TEST_CASE("a run whose child fails leaves no part behind and keeps the child's input error",
          "[output][parts]") {
  const fs::path dir = nvlsim::test::scratch_dir("parts-failed-run");
  const fs::path out = dir / "out";
  const auto failed =
      nvlsim::test::run_nvlsim("--policy per-gpu,block --trace " + nvlsim::test::data_file("theta_100.swf") +
                                   " --fit --sample 1e-9 --quiet --out " + out.string(),
                               dir);
  CHECK(failed.status == 2);
  CHECK(failed.err.starts_with("sample step 1e-09 s: "));
  CHECK(names_in(out).empty());
  const auto ok =
      nvlsim::test::run_nvlsim("--policy per-gpu,block --trace " + nvlsim::test::data_file("theta_100.swf") +
                                   " --fit --write-swf --quiet --out " + out.string(),
                               dir);
  REQUIRE(ok.status == 0);
  CHECK(names_in(out) == std::vector<std::string>{".nvlsim-files", "attempts.csv", "jobs.csv", "run.json",
                                                  "schedule-block.swf", "schedule-per-gpu.swf", "summary.csv",
                                                  "timeseries.csv"});
}
