// A trace with fractional requests replays exactly as the same trace without them: no policy shares GPUs
// yet, so a fraction is held as the whole GPU it asks part of, and every output file is the same.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "nvlsim_process.hpp"
#include "workloads/mix_generator.hpp"
#include "workloads/swf_reader.hpp"
#include "workloads/swf_writer.hpp"

namespace fs = std::filesystem;
using namespace nvlsim;
using namespace nvlsim::test;

namespace {

void write_file(const fs::path& path, const GeneratedMix& mix) {
  std::ofstream out(path);
  write_swf(out, mix.header, mix.records);
}

}  // namespace

TEST_CASE("a trace with fractional requests replays as whole GPUs, every CSV file unchanged",
          "[fraction][e2e]") {
  const auto dir = scratch_dir("fraction-replay");
  MixParams p;
  p.jobs = 200;
  p.gpus = 144;
  p.seed = 3;
  p.fractional_share = 0.8;
  GeneratedMix mix = generate_mix(p);
  write_file(dir / "fractional.swf", mix);
  std::size_t fractional = 0;
  for (SwfRecord& r : mix.records) {
    fractional += r.gpu_milli != -1;
    r.gpu_milli = -1;
  }
  REQUIRE(fractional > 30);
  write_file(dir / "whole.swf", mix);
  REQUIRE(slurp((dir / "fractional.swf").string()).find("; Field19: gpu_milli\n") != std::string::npos);
  REQUIRE(slurp((dir / "whole.swf").string()).find("Field19") == std::string::npos);

  const std::string platform = std::string(NVLSIM_SOURCE_DIR) + "/platforms/nvl72x2.xml";
  for (const std::string name : {"fractional", "whole"}) {
    const auto r = run_nvlsim("--quiet --write-swf --policy all --platform " + platform + " --trace " +
                                  (dir / (name + ".swf")).string() + " --out " + (dir / name).string(),
                              dir);
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  for (const std::string file : {"jobs.csv", "attempts.csv", "summary.csv", "timeseries.csv"}) {
    INFO(file);
    const std::string fractional_out = slurp((dir / "fractional" / file).string());
    CHECK(!fractional_out.empty());
    CHECK(fractional_out == slurp((dir / "whole" / file).string()));
  }
  // The simulated schedule keeps each job's fraction, so it replays as the input did.
  const auto schedule = read_swf((dir / "fractional" / "schedule-per-gpu.swf").string());
  std::size_t kept = 0;
  for (const SwfRecord& r : schedule.records) kept += r.gpu_milli != -1;
  CHECK(kept == fractional);
}
