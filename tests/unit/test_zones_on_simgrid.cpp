// NVL576's zones on SimGrid, through `nvlsim probe` and a replay: routes cross the zones' midplane links,
// collectives run alone take the closed forms computed here by hand (within 1%), jobs sharing a zone's
// midplane link slow each other by the max-min share, and the zone level reaches a job's figures.

#include <catch2/catch.hpp>

#include <fstream>
#include <map>

#include "csv_table.hpp"
#include "nvlsim_process.hpp"
#include "probe_output.hpp"

using namespace nvlsim::test;

namespace {

constexpr double kB = 3.6e12;      // NVLink per GPU: 72 links x 50 GB/s
constexpr double kZone = 64.8e12;  // a zone's midplane link: 36 GPUs x 1.8 TB/s
constexpr double kNic = 192e9;     // 0.96 of a 1.6 Tb/s NIC
constexpr double kS = 1e9;

// Two Kyber racks: two domains of 144 GPUs, zones of GPUs 0-35, 36-71, 72-107, 108-143 in domain 0.
std::string nvl576(const std::filesystem::path& dir, const std::string& flags = "") {
  const auto file = dir / "nvl576.xml";
  const auto r =
      run_nvlsim("platform --system vr-ultra-nvl576 --racks 2" + flags + " -o " + file.string(), dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return file.string();
}

}  // namespace

TEST_CASE("a route between zones crosses both zones' midplane links, one inside a zone only the ports",
          "[zones][platform]") {
  const auto dir = scratch_dir("zones-routes");
  const std::string platform = nvl576(dir);
  CHECK(slurp(platform).find("format_version\" value=\"3\"") != std::string::npos);
  auto r = run_nvlsim("probe --platform " + platform + " --route 0 40", dir);
  CHECK(r.out ==
        "route gpu-0 -> gpu-40 (nvlink): nvl_link_0_UP nvl-zone-0-0_UP nvl-zone-0-1_DOWN "
        "nvl_link_40_DOWN\n");
  r = run_nvlsim("probe --platform " + platform + " --route 5 35", dir);
  CHECK(r.out == "route gpu-5 -> gpu-35 (nvlink): nvl_link_5_UP nvl_link_35_DOWN\n");
  // Domain 1's zone 3.
  r = run_nvlsim("probe --platform " + platform + " --route 287 144", dir);
  CHECK(r.out ==
        "route gpu-287 -> gpu-144 (nvlink): nvl_link_287_UP nvl-zone-1-3_UP nvl-zone-1-0_DOWN "
        "nvl_link_144_DOWN\n");
}

TEST_CASE("collectives over zones and domains on SimGrid take their three-level closed forms",
          "[zones][fabric]") {
  const auto dir = scratch_dir("zones-closed-form");
  const std::string platform = nvl576(dir);
  struct Case {
    const char* gpus;
    double all_reduce;
    double all_to_all;
  };
  const Case cases[] = {
      // One zone: NVLS, and all-to-all over the ports.
      {"0-35", 2 * 35.0 / 36 * kS / (0.94 * kB), 35.0 / 36 * kS / (0.8 * kB)},
      // Two zones: NVLS in each and the message once across, a 1/36 share per GPU on the same port; the
      // all-to-all's 36 GPUs each send half the message across, which the midplane link limits.
      {"0-71", (2 * 35.0 / 36 / 0.94 + 1.0 / 36 / 0.8) * kS / kB, 36 * 0.5 / 0.8 * kS / kZone},
      // 8 + 8: the ports limit both.
      {"0-7 36-43", (2 * 7.0 / 8 / 0.94 + 1.0 / 8 / 0.8) * kS / kB, (7.0 / 16 + 8.0 / 16) / 0.8 * kS / kB},
      // Two domains of two zones: the NICs decide, the tree's message over 8 NICs, all-to-all's half.
      {"0-71 144-215", kS / (8 * kNic), 0.5 * kS / kNic},
  };
  for (const Case& c : cases) {
    INFO(c.gpus);
    auto r = probe("--platform " + platform + " --gpus \"" + c.gpus + "\" --collective all-reduce", dir);
    CHECK(std::stod(r.at("simulated_s")) == Approx(c.all_reduce).epsilon(0.01));
    CHECK(std::stod(r.at("closed_form_s")) == Approx(c.all_reduce).epsilon(1e-9));
    r = probe("--platform " + platform + " --gpus \"" + c.gpus + "\" --collective all-to-all", dir);
    CHECK(std::stod(r.at("simulated_s")) == Approx(c.all_to_all).epsilon(0.01));
    CHECK(std::stod(r.at("closed_form_s")) == Approx(c.all_to_all).epsilon(1e-9));
  }
  const auto r = probe("--platform " + platform + " --gpus \"0-71 144-215\"", dir);
  CHECK(r.at("placement") == "36+36 36+36");
}

TEST_CASE("jobs sharing a zone's midplane link slow each other by the max-min share", "[zones][fabric]") {
  const auto dir = scratch_dir("zones-contention");
  // 100 GB/s per GPU of the midplane: a zone's link carries 3.6 TB/s, the port of one GPU.
  const std::string platform = nvl576(dir, " --inter-zone-bw 1e11");
  // 8 + 8 all-to-all: each of 8 GPUs sends half its message to the other zone, 8 flows on the link.
  const double alone = 8 * 0.5 / 0.8 * kS / 3.6e12;
  auto r = probe("--platform " + platform + " --collective all-to-all --gpus \"0-7 36-43\"", dir);
  CHECK(std::stod(r.at("simulated_s")) == Approx(alone).epsilon(1e-6));
  // A second such job on the same two zones: 16 flows share the links, twice the time.
  r = probe("--platform " + platform + " --collective all-to-all --gpus \"0-7 36-43\" --gpus \"8-15 44-51\"",
            dir);
  CHECK(std::stod(r.at("simulated_s.0")) == Approx(2 * alone).epsilon(1e-6));
  CHECK(std::stod(r.at("simulated_s.1")) == Approx(2 * alone).epsilon(1e-6));
  // One on zones 2 and 3 shares nothing.
  r = probe(
      "--platform " + platform + " --collective all-to-all --gpus \"0-7 36-43\" --gpus \"72-79 108-115\"",
      dir);
  CHECK(std::stod(r.at("simulated_s.0")) == Approx(alone).epsilon(1e-6));
}

TEST_CASE("a replayed job over two zones loses what the zone level costs it", "[zones][e2e]") {
  const auto dir = scratch_dir("zones-replay");
  const std::string platform = nvl576(dir);
  // 72 GPUs on an empty machine fill zones 0 and 1 (36 + 36), the reference placement: it runs its trace
  // time; its bandwidth efficiency is one switch hop's time (NVLS over 72) over the two zones'.
  std::ofstream(dir / "t.swf") << "1 0 -1 1000 72 -1 -1 72 5000 -1 1 1 1 1 1 1 -1 -1\n";
  const auto out = dir / "out";
  const auto r = run_nvlsim("--quiet --policy per-gpu --platform " + platform + " --trace " +
                                (dir / "t.swf").string() + " --out " + out.string(),
                            dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const CsvTable jobs = read_csv((out / "jobs.csv").string());
  CHECK(jobs.num(0, "execution_time") == Approx(1000).epsilon(1e-9));
  const double one_hop = 2 * 71.0 / 72 / 0.94;
  const double zones = 2 * 35.0 / 36 / 0.94 + 1.0 / 36 / 0.8;
  CHECK(jobs.num(0, "bw_efficiency") == Approx(one_hop / zones).epsilon(1e-9));
  CHECK(jobs.at(0, "domains") == "1");
}

TEST_CASE("a platform file with zones but no zone links is refused", "[zones][platform]") {
  const auto dir = scratch_dir("zones-format2");
  const std::string platform = nvl576(dir);
  std::string text = slurp(platform);
  const std::string three = "format_version\" value=\"3\"";
  text.replace(text.find(three), three.size(), "format_version\" value=\"2\"");
  const auto old = dir / "old.xml";
  std::ofstream(old) << text;
  const auto r = run_nvlsim("probe --platform " + old.string() + " --route 0 1", dir);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(old.string() + ": property nvlsim.format_version") != std::string::npos);
  CHECK(r.err.find("write it again with `nvlsim platform`") != std::string::npos);
}

TEST_CASE("nvlsim platform refuses --inter-zone-bw on a system without zones", "[zones][cli]") {
  const auto dir = scratch_dir("zones-flag");
  const auto r = run_nvlsim(
      "platform --system gb200-nvl72 --racks 1 --inter-zone-bw 1e12 -o " + (dir / "x.xml").string(), dir);
  CHECK(r.status == 2);
  CHECK(r.err.find("--inter-zone-bw: gb200-nvl72 has one zone per NVLink domain") != std::string::npos);
}
