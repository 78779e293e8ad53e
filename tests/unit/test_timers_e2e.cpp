// Transfers that share no link with another run as timers (sim/flow_timers.hpp): every NVLink transfer
// inside a domain, and the InfiniBand transfers whose route the solver sees is their two NICs' ports.
// --cfg=nvlsim/timers:0 runs every transfer as a SimGrid flow instead; the CSVs must be the same byte for
// byte, on platforms with latencies (a timer's latency and bound), with failures that degrade NVLink ports
// while timers run, with oversubscribed leaves, where InfiniBand transfers stay flows beside timers, and
// with all-to-all collectives, whose steps send several InfiniBand transfers through one NIC.
// The one exception is timeseries.csv's utilisation, integrated from rates that a timer knows exactly and
// SimGrid as a difference of remaining bytes: equal to 1e-12 relative.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "nvlsim_process.hpp"

using namespace nvlsim::test;

namespace {

struct Case {
  std::string name;
  std::string platform_flags;  // nvlsim platform's
  std::string run_flags;
};

// Cells that are not the same text are numbers within `relative` of each other.
void check_close(const std::filesystem::path& a, const std::filesystem::path& b, double relative) {
  const CsvTable x = read_csv(a.string());
  const CsvTable y = read_csv(b.string());
  REQUIRE(x.column == y.column);
  REQUIRE(x.rows.size() == y.rows.size());
  CHECK(x.rows.size() > 10);
  for (std::size_t r = 0; r < x.rows.size(); ++r) {
    for (std::size_t c = 0; c < x.rows[r].size(); ++c) {
      const std::string& u = x.rows[r][c];
      const std::string& v = y.rows[r][c];
      if (u == v) continue;
      INFO("row " << r + 2 << ": " << u << " against " << v);
      char* end_u = nullptr;
      char* end_v = nullptr;
      const double p = std::strtod(u.c_str(), &end_u);
      const double q = std::strtod(v.c_str(), &end_v);
      REQUIRE((*end_u == '\0' && *end_v == '\0' && !u.empty() && !v.empty()));
      CHECK(std::abs(p - q) <= relative * std::max(std::abs(p), std::abs(q)));
    }
  }
}

}  // namespace

TEST_CASE("timers and SimGrid flows give byte-identical CSVs on the built-in mix", "[e2e][flow_timers]") {
  const auto dir = scratch_dir("timers-e2e");
  // All-to-all sends from each domain to every other in one step: InfiniBand transfers that share their
  // NIC ports stay flows beside the step's timers.
  const auto [name, platform_flags, run_flags] = GENERATE(values<Case>({
      {"latency", "--nvlink-latency 1e-6 --ib-latency 5e-6", ""},
      {"oversubscribed", "--ib-latency 5e-6 --ib-oversubscription 4", ""},
      {"all-to-all", "--ib-latency 5e-6", " --collective all-to-all"},
  }));
  INFO(name);
  const auto platform = (dir / (name + ".xml")).string();
  REQUIRE(run_nvlsim("platform --racks 8 " + platform_flags + " -o " + platform, dir).status == 0);
  // The built-in mix of the platform's size.
  const std::string common = "--quiet --platform " + platform +
                             " --policy all --failures llama3 --failure-rate-scale 300 --seed 11" + run_flags;
  const auto timers = dir / (name + "-timers");
  const auto flows = dir / (name + "-flows");
  const auto a = run_nvlsim(common + " --out " + timers.string(), dir);
  INFO(a.err);
  REQUIRE(a.status == 0);
  const auto b = run_nvlsim(common + " --cfg=nvlsim/timers:0 --out " + flows.string(), dir);
  INFO(b.err);
  REQUIRE(b.status == 0);
  for (const char* file : {"jobs.csv", "attempts.csv", "summary.csv"}) {
    INFO(file);
    const std::string text = slurp((timers / file).string());
    CHECK(text.size() > 200);  // rows, not just a header
    CHECK(text == slurp((flows / file).string()));
  }
  check_close(timers / "timeseries.csv", flows / "timeseries.csv", 1e-12);
}
