// The fabric as SimGrid sees it, through `nvlsim probe`: routes, and collectives run alone against the
// closed forms of the fabric issue (computed here by hand, independently of models/collective.cpp).

#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include "nvlsim_process.hpp"

using namespace nvlsim::test;

namespace {

constexpr double kNvl = 900e9;
constexpr double kIb = 50e9;
constexpr double kS = 1e9;

std::map<std::string, std::string> probe(const std::string& args, const std::filesystem::path& dir) {
  const auto r = run_nvlsim("probe " + args, dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::map<std::string, std::string> out;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    const auto space = line.find(' ');
    out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

std::string three_racks(const std::filesystem::path& dir) {
  const auto file = dir / "x3.xml";
  REQUIRE(run_nvlsim("platform --racks 3 -o " + file.string(), dir).status == 0);
  return file.string();
}

}  // namespace

TEST_CASE("a same-rack pair talks over NVLink ports, other pairs over NIC, fabric, NIC", "[fabric]") {
  const auto dir = scratch_dir("routes");
  const std::string platform = three_racks(dir);
  CHECK(probe("--platform " + platform + " --route 0 5", dir).at("route") ==
        "gpu-0 -> gpu-5 (nvlink): nvl-0_link_0_UP nvl-0_link_5_DOWN");
  CHECK(probe("--platform " + platform + " --route 3 150", dir).at("route") ==
        "nic-3 -> nic-150 (infiniband): ib_link_3_UP ib_backbone ib_link_150_DOWN");
}

TEST_CASE("an isolated collective on SimGrid takes its closed-form time", "[fabric]") {
  const auto dir = scratch_dir("closed-form");
  const std::string platform = three_racks(dir);
  struct Case {
    const char* gpus;
    double all_reduce;
    double all_to_all;
  };
  const Case cases[] = {
      {"0-7", 2 * 7.0 / 8 * kS / kNvl, 7.0 / 8 * kS / kNvl},
      {"0-3 72-75", 2 * 3.0 / 4 * kS / kNvl + 2 * 0.5 * kS / (4 * kIb), 4.0 / 8 * kS / kIb},
      {"0-30 72", 2 * 30.0 / 31 * kS / kNvl + 2 * 0.5 * kS / (1 * kIb), 31.0 / 32 * kS / kIb},
      {"0-15 72-87", 2 * 15.0 / 16 * kS / kNvl + 2 * 0.5 * kS / (16 * kIb), 16.0 / 32 * kS / kIb},
      {"0-71 72-143", 2 * 71.0 / 72 * kS / kNvl + 2 * 0.5 * kS / (72 * kIb), 72.0 / 144 * kS / kIb},
      {"0-47 72-119 144-191", 2 * 47.0 / 48 * kS / kNvl + 2 * 2.0 / 3 * kS / (48 * kIb),
       96.0 / 144 * kS / kIb},
  };
  for (const Case& c : cases) {
    INFO(c.gpus);
    auto r = probe("--platform " + platform + " --gpus \"" + c.gpus + "\" --collective all-reduce", dir);
    CHECK(std::stod(r.at("simulated_s")) == Approx(c.all_reduce).epsilon(0.01));
    r = probe("--platform " + platform + " --gpus \"" + c.gpus + "\" --collective all-to-all", dir);
    CHECK(std::stod(r.at("simulated_s")) == Approx(c.all_to_all).epsilon(0.01));
  }
}

TEST_CASE("bw_efficiency figures of the fabric issue", "[fabric]") {
  const auto dir = scratch_dir("efficiency");
  const std::string platform = three_racks(dir);
  const auto efficiency = [&](const char* gpus) {
    const auto r = probe("--platform " + platform + " --gpus \"" + gpus + "\"", dir);
    return std::stod(r.at("nvlink_ideal_s")) / std::stod(r.at("simulated_s"));
  };
  CHECK(efficiency("0-7") == Approx(1.0));
  CHECK(efficiency("0-3 72-75") == Approx(0.29).epsilon(0.01));
  CHECK(efficiency("0-30 72") == Approx(0.10).epsilon(0.03));
  CHECK(efficiency("0-71 72-143") == Approx(0.89).epsilon(0.01));
}
