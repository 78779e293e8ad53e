// Fractional requests through the command line: `nvlsim workload convert` reports the Alibaba pods whose
// fractions it kept, and `nvlsim workload mix --fractional-share P` writes the library's mix, P checked.

#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "nvlsim_process.hpp"
#include "workloads/mix_generator.hpp"
#include "workloads/swf_reader.hpp"
#include "workloads/swf_writer.hpp"

using namespace nvlsim;
using namespace nvlsim::test;

TEST_CASE("nvlsim workload convert reports the fractional pods it kept, and writes them", "[fraction][e2e]") {
  const auto dir = scratch_dir("fraction-convert");
  const auto r = run_nvlsim("workload convert --from alibaba " +
                                data_file("alibaba-gpu-v2023/openb_pod_list_default.csv") + " -o " +
                                (dir / "a.swf").string(),
                            dir);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("  kept 2573: fractional GPU (gpu_milli < 1000) in field 19\n") != std::string::npos);
  CHECK(r.err.find("adjusted") == std::string::npos);
  const SwfTrace trace = read_swf(dir / "a.swf");
  CHECK(trace.header.get("Field19") == "gpu_milli");
  std::size_t fractional = 0;
  for (const SwfRecord& rec : trace.records) fractional += rec.gpu_milli != -1;
  CHECK(fractional == 2573);
}

TEST_CASE("nvlsim workload mix --fractional-share writes the generator's mix and checks P",
          "[fraction][mix][e2e]") {
  const auto dir = scratch_dir("fraction-mix");
  auto r = run_nvlsim(
      "workload mix --jobs 500 --gpus 576 --seed 4 --fractional-share 0.3 -o " + (dir / "f.swf").string(),
      dir);
  REQUIRE(r.status == 0);
  MixParams p;
  p.jobs = 500;
  p.gpus = 576;
  p.seed = 4;
  p.fractional_share = 0.3;
  const GeneratedMix mix = generate_mix(p);
  std::ostringstream expected;
  write_swf(expected, mix.header, mix.records);
  CHECK(slurp((dir / "f.swf").string()) == expected.str());

  // 0 is the mix without the flag.
  r = run_nvlsim("workload mix --jobs 500 --gpus 576 --fractional-share 0 -o " + (dir / "zero.swf").string(),
                 dir);
  REQUIRE(r.status == 0);
  r = run_nvlsim("workload mix --jobs 500 --gpus 576 -o " + (dir / "none.swf").string(), dir);
  REQUIRE(r.status == 0);
  CHECK(slurp((dir / "zero.swf").string()) == slurp((dir / "none.swf").string()));

  r = run_nvlsim("workload mix --jobs 10 --gpus 8 --fractional-share 1.5 -o x.swf", dir);
  CHECK(r.status == 2);
  CHECK(r.err == "nvlsim: --fractional-share: must be between 0 and 1, got 1.5\n");
}
