// Format 2 platforms leave the InfiniBand plane out of the XML and nvlsim builds it when loading
// (platforms/ib_plane.hpp); format 1 files, written by earlier nvlsim, describe it as SimGrid zones and
// still load. The two must be the same machine: the same routes but for the links format 2 leaves out
// of the solve because they can never saturate, and the same replays.

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>

#include "nvlsim_process.hpp"

using namespace nvlsim::test;

namespace {

// Three tiers (72 leaves of 4 NICs in pods) and non-zero latencies, so every kind of InfiniBand link
// is on some route; the files in tests/data were written with these flags by the last format 1 writer.
// The format 1 files predate NVLS as the default: they say nvlink_sharp 0.
const std::string kFlags =
    "--racks 4 --ib-switch-radix 8 --ib-latency 1e-6 --nvlink-latency 2e-7 --no-nvlink-sharp";
const std::string kOversubscribed = " --ib-oversubscription 2";

std::string format2_file(const std::filesystem::path& dir, const std::string& extra) {
  const std::string file = (dir / "format2.xml").string();
  const auto written = run_nvlsim("platform " + kFlags + extra + " -o " + file, dir);
  REQUIRE(written.status == 0);
  REQUIRE(slurp(file).find("format_version\" value=\"2\"") != std::string::npos);
  return file;
}

// A probed route without the links whose names contain one of `left_out`.
std::string without(const std::string& route, std::initializer_list<const char*> left_out) {
  std::istringstream in(route);
  std::string out;
  for (std::string word; in >> word;) {
    bool keep = true;
    for (const char* part : left_out) keep = keep && word.find(part) == std::string::npos;
    if (keep) out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

void check_routes(const std::string& v1, const std::string& v2, std::initializer_list<const char*> left_out,
                  const std::filesystem::path& dir) {
  // Same tray, same leaf, same pod on another leaf, another pod, another rail, and NVLink in a domain.
  for (const char* pair : {"0 1", "0 4", "0 16", "0 200", "1 287", "5 70"}) {
    const auto a = run_nvlsim(std::string("probe --platform ") + v1 + " --route " + pair, dir);
    const auto b = run_nvlsim("probe --platform " + v2 + " --route " + pair, dir);
    INFO(pair << "\n" << a.err << b.err);
    REQUIRE(a.status == 0);
    REQUIRE(b.status == 0);
    CHECK(without(a.out, left_out) == without(b.out, {}));
  }
}

// Replays the theta trace on a platform: cross-rack jobs, contention on oversubscribed leaves, and
// failures that degrade NVLink ports.
std::filesystem::path replay(const std::string& platform, const std::filesystem::path& out) {
  const std::string run =
      "--platform " + platform + " --trace " + data_file("theta_100.swf") +
      " --fit --policy all --failures llama3 --failure-rate-scale 200 --comm-rounds 3 --quiet";
  const auto r = run_nvlsim(run + " --out " + out.string(), out.parent_path());
  INFO(r.err);
  REQUIRE(r.status == 0);
  // The comparison means something only if the fabric carried traffic and failures struck.
  const CsvTable summary = read_csv((out / "summary.csv").string());
  double cross = 0, killed = 0;
  for (std::size_t row = 0; row < summary.rows.size(); ++row) {
    cross += summary.num(row, "cross_domain_jobs");
    killed += summary.num(row, "nb_jobs_killed");
  }
  CHECK(cross > 0);
  CHECK(killed > 0);
  return out;
}

const char* const kCsvs[] = {"jobs.csv", "attempts.csv", "summary.csv", "timeseries.csv"};

}  // namespace

TEST_CASE("format 2 routes as format 1 but for the pods' core links, which never saturate",
          "[e2e][platform]") {
  const auto dir = scratch_dir("format1-routes-pods");
  check_routes(data_file("nvl72x4-pods-format1.xml"), format2_file(dir, kOversubscribed), {"ib-pod-"}, dir);
}

TEST_CASE("format 2 routes as format 1 but for leaf uplinks that carry all their NICs can send",
          "[e2e][platform]") {
  const auto dir = scratch_dir("format1-routes-leaves");
  check_routes(data_file("nvl72x4-leaves-format1.xml"), format2_file(dir, ""), {"-up_"}, dir);
}

TEST_CASE("leaving out core links that never saturate changes no replay by a single byte",
          "[e2e][platform]") {
  const auto dir = scratch_dir("format1-replay-pods");
  const auto v1 = replay(data_file("nvl72x4-pods-format1.xml"), dir / "v1");
  const auto v2 = replay(format2_file(dir, kOversubscribed), dir / "v2");
  for (const char* csv : kCsvs) {
    INFO(csv);
    CHECK(slurp((v1 / csv).string()) == slurp((v2 / csv).string()));
  }
}

TEST_CASE("leaving out leaf uplinks that never saturate changes a replay by rounding at most",
          "[e2e][platform]") {
  const auto dir = scratch_dir("format1-replay-leaves");
  const auto v1 = replay(data_file("nvl72x4-leaves-format1.xml"), dir / "v1");
  const auto v2 = replay(format2_file(dir, ""), dir / "v2");
  // SimGrid's solver meets fewer constraints, so sums may round differently; nothing else may differ.
  for (const char* csv : kCsvs) {
    const CsvTable a = read_csv((v1 / csv).string());
    const CsvTable b = read_csv((v2 / csv).string());
    REQUIRE(a.column == b.column);
    REQUIRE(a.rows.size() == b.rows.size());
    for (std::size_t row = 0; row < a.rows.size(); ++row)
      for (std::size_t c = 0; c < a.rows[row].size(); ++c) {
        const std::string& x = a.rows[row][c];
        const std::string& y = b.rows[row].at(c);
        if (x == y) continue;
        INFO(csv << " row " << row + 1 << " column " << c + 1 << ": " << x << " against " << y);
        const double dx = std::stod(x), dy = std::stod(y);
        CHECK(std::abs(dx - dy) <= 1e-9 * std::max(std::abs(dx), std::abs(dy)));
      }
  }
}
