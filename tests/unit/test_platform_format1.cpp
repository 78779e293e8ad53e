// Format 2 platforms leave the InfiniBand plane out of the XML and nvlsim builds it when loading
// (platforms/ib_plane.hpp); format 1 files, written by earlier nvlsim, describe it as SimGrid zones and
// still load. The two must be the same machine: same routes, and replays identical byte for byte.

#include <catch2/catch.hpp>

#include <string>

#include "nvlsim_process.hpp"

using namespace nvlsim::test;

namespace {

// The flags tests/data/nvl72x4-pods-format1.xml was written with: three tiers (72 leaves of 4 NICs in
// pods), oversubscribed leaves and non-zero latencies, so every kind of InfiniBand link is on some route.
const std::string kFlags =
    "--racks 4 --ib-switch-radix 8 --ib-oversubscription 2 --ib-latency 1e-6 --nvlink-latency 2e-7";

std::string format2_file(const std::filesystem::path& dir) {
  const std::string file = (dir / "format2.xml").string();
  const auto written = run_nvlsim("platform " + kFlags + " -o " + file, dir);
  REQUIRE(written.status == 0);
  REQUIRE(slurp(file).find("format_version\" value=\"2\"") != std::string::npos);
  return file;
}

}  // namespace

TEST_CASE("a format 1 platform and its format 2 twin route every kind of pair alike", "[e2e][platform]") {
  const auto dir = scratch_dir("format1-routes");
  const std::string v2 = format2_file(dir);
  const std::string v1 = data_file("nvl72x4-pods-format1.xml");
  // Same tray, same leaf, same pod on another leaf, another pod, another rail, and NVLink in a domain.
  for (const char* pair : {"0 1", "0 4", "0 16", "0 200", "1 287", "5 70"}) {
    const auto a = run_nvlsim(std::string("probe --platform ") + v1 + " --route " + pair, dir);
    const auto b = run_nvlsim("probe --platform " + v2 + " --route " + pair, dir);
    INFO(pair << "\n" << a.err << b.err);
    REQUIRE(a.status == 0);
    REQUIRE(b.status == 0);
    CHECK(a.out == b.out);
  }
}

TEST_CASE("a format 1 platform and its format 2 twin replay byte for byte alike", "[e2e][platform]") {
  const auto dir = scratch_dir("format1-replay");
  const std::string v2 = format2_file(dir);
  const std::string v1 = data_file("nvl72x4-pods-format1.xml");
  // Cross-rack jobs, contention on the oversubscribed leaves, and failures that degrade NVLink ports.
  const std::string run =
      " --trace " + data_file("theta_100.swf") +
      " --fit --policy all --failures llama3 --failure-rate-scale 200 --comm-rounds 3 --quiet";
  const auto a = run_nvlsim("--platform " + v1 + run + " --out " + (dir / "v1").string(), dir);
  const auto b = run_nvlsim("--platform " + v2 + run + " --out " + (dir / "v2").string(), dir);
  INFO(a.err << b.err);
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  for (const char* csv : {"jobs.csv", "attempts.csv", "summary.csv", "timeseries.csv"}) {
    INFO(csv);
    CHECK(slurp((dir / "v1" / csv).string()) == slurp((dir / "v2" / csv).string()));
  }
  // The comparison means something only if the fabric carried traffic and failures struck.
  const CsvTable summary = read_csv((dir / "v2" / "summary.csv").string());
  double cross = 0, killed = 0;
  for (std::size_t r = 0; r < summary.rows.size(); ++r) {
    cross += summary.num(r, "cross_domain_jobs");
    killed += summary.num(r, "nb_jobs_killed");
  }
  CHECK(cross > 0);
  CHECK(killed > 0);
}
