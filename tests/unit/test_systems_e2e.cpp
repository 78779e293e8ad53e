// Every system of models/system_catalog.hpp through the nvlsim binary: `nvlsim platform --system` writes
// a file that loads and that every policy replays a trace on; the system's bandwidths reach the replay;
// flags replace its figures; its rack price and power are the cost model's defaults.

#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "models/system_catalog.hpp"
#include "nvlsim_process.hpp"
#include "schedulers/policy_registry.hpp"

using namespace nvlsim::test;
using nvlsim::SystemFacts;
namespace fs = std::filesystem;

namespace {

// Writes two NVLink domains of `system` (four racks on NVL36x2) into dir/NAME.xml; `flags` are added.
std::string write_platform(const SystemFacts& system, const fs::path& dir, const std::string& flags = "") {
  const std::string file = (dir / (std::string(system.name) + ".xml")).string();
  const int racks = 2 * system.racks_per_domain.value;
  const auto r = run_nvlsim("platform --system " + std::string(system.name) + " --racks " +
                                std::to_string(racks) + flags + " -o " + file,
                            dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return file;
}

// The value of nvlsim.KEY in a platform file nvlsim wrote; empty when it has none.
std::string property(const std::string& file, const std::string& key) {
  const std::string text = slurp(file);
  const std::string head = "id=\"nvlsim." + key + "\" value=\"";
  const auto at = text.find(head);
  if (at == std::string::npos) return "";
  const auto start = at + head.size();
  return text.substr(start, text.find('"', start) - start);
}

nlohmann::json run_json(const fs::path& out) {
  return nlohmann::json::parse(slurp((out / "run.json").string()));
}

}  // namespace

TEST_CASE("every system's platform loads and every policy replays a trace on it, with failures",
          "[e2e][systems]") {
  const auto policies = nvlsim::policy_names();
  for (const SystemFacts& system : nvlsim::systems()) {
    DYNAMIC_SECTION(system.name) {
      const auto dir = scratch_dir("systems-" + std::string(system.name));
      const std::string platform = write_platform(system, dir);
      const auto out = dir / "out";
      const auto r = run_nvlsim("--quiet --platform " + platform + " --trace " + data_file("theta_100.swf") +
                                    " --fit --policy all --failures llama3 --failure-rate-scale 200 --out " +
                                    out.string(),
                                dir);
      INFO(r.err);
      REQUIRE(r.status == 0);
      const auto run = run_json(out);
      const int gpus = 2 * system.gpus_per_domain();
      CHECK(run["platform"]["system"] == system.name);
      CHECK(run["platform"]["racks"] == 2 * system.racks_per_domain.value);
      CHECK(run["platform"]["domains"] == 2);
      CHECK(run["platform"]["gpus"] == gpus);
      CHECK(run["platform"]["nvlink_gpu_bw_bytes_per_s"].get<double>() == system.nvlink_gpu_bw());
      CHECK(run["platform"]["nic_bw_bytes_per_s"].get<double>() == system.nic_bw.value);
      // Every policy placed the trace's 100 jobs on GPUs the platform has, and each ran.
      const CsvTable jobs = read_csv((out / "jobs.csv").string());
      std::map<std::string, int> started;
      for (std::size_t row = 0; row < jobs.rows.size(); ++row) {
        if (jobs.at(row, "starting_time").empty()) continue;
        ++started[jobs.at(row, "policy")];
        const std::string& resources = jobs.at(row, "allocated_resources");
        const std::string last = resources.substr(resources.find_last_of(" -") + 1);
        CHECK(std::stoi(last) < gpus);
      }
      for (const std::string& policy : policies) {
        INFO(policy);
        CHECK(started[policy] == 100);
      }
      const CsvTable summary = read_csv((out / "summary.csv").string());
      CHECK(summary.rows.size() == policies.size());
      double killed = 0;
      for (std::size_t row = 0; row < summary.rows.size(); ++row)
        killed += summary.num(row, "nb_jobs_killed");
      CHECK(killed > 0);  // failures struck, on this system's components
    }
  }
}

TEST_CASE("each system's NVLink and NIC bandwidths set the cost of a job split over two domains",
          "[e2e][systems][physics]") {
  for (const SystemFacts& system : nvlsim::systems()) {
    DYNAMIC_SECTION(system.name) {
      const auto dir = scratch_dir("systems-split-" + std::string(system.name));
      const std::string platform = write_platform(system, dir);
      // The first job fills domain 0 but for 4 GPUs; per-gpu then gives the 8-GPU job 4 + 4 over two domains.
      const int first = system.gpus_per_domain() - 4;
      std::ofstream(dir / "t.swf") << "1 0 -1 100000 " << first << " -1 -1 " << first
                                   << " 200000 -1 1 1 1 1 1 1 -1 -1\n"
                                   << "2 1 -1 1000 8 -1 -1 8 5000 -1 1 1 1 1 1 1 -1 -1\n";
      const auto out = dir / "out";
      const auto r = run_nvlsim("--quiet --policy per-gpu --comm-fraction 0.3 --platform " + platform +
                                    " --trace " + (dir / "t.swf").string() + " --out " + out.string(),
                                dir);
      INFO(r.err);
      REQUIRE(r.status == 0);
      const CsvTable jobs = read_csv((out / "jobs.csv").string());
      REQUIRE(jobs.at(1, "domains") == "2");
      // NCCL's all-reduce of docs/model.md: t(4+4) is NVLSTree's slower level, NVLS over 4 GPUs or the
      // message once each way over 4 NICs; t(8) = 2(7/8)S/B with NVLS. At 94% of NVLink, 96% of a NIC.
      const double nvls = 0.94 * system.nvlink_gpu_bw();
      const double nics = 4 * 0.96 * system.nic_bw.value;
      const double ratio = std::max(2 * 0.75 / nvls, 1.0 / nics) / (2 * 0.875 / nvls);
      CHECK(jobs.num(1, "bw_efficiency") == Approx(1 / ratio).epsilon(1e-9));
      CHECK(jobs.num(1, "execution_time") == Approx(1000 * (0.7 + 0.3 * ratio)).epsilon(1e-9));
    }
  }
}

TEST_CASE("nvlsim platform --system writes the system's figures, and each flag replaces its own",
          "[e2e][systems][platform]") {
  const auto dir = scratch_dir("systems-flags");
  const auto& gb300 = nvlsim::system_named("gb300-nvl72");
  const std::string plain = write_platform(gb300, dir);
  CHECK(property(plain, "system") == "gb300-nvl72");
  CHECK(std::stod(property(plain, "nic_bw")) == gb300.nic_bw.value);
  CHECK(std::stod(property(plain, "nvlink_links_per_gpu")) == gb300.nvlink_links_per_gpu.value);

  fs::create_directories(dir / "flags");
  const std::string flagged =
      write_platform(gb300, dir / "flags", " --nic-bw 25e9 --nvlink-links 9 --ib-latency 1e-6");
  CHECK(property(flagged, "system") == "gb300-nvl72");
  CHECK(std::stod(property(flagged, "nic_bw")) == 25e9);
  CHECK(property(flagged, "nvlink_links_per_gpu") == "9");
  CHECK(std::stod(property(flagged, "ib_latency")) == 1e-6);
  // What no flag replaced stays the system's.
  CHECK(std::stod(property(flagged, "nvlink_link_bw")) == gb300.nvlink_link_bw.value);
  CHECK(property(flagged, "trays_per_domain") == property(plain, "trays_per_domain"));

  // NVL576's zones are recorded, with the bandwidth between them; one-zone systems write none.
  const auto& kyber = nvlsim::system_named("vr-ultra-nvl576");
  const std::string zoned = write_platform(kyber, dir);
  CHECK(property(zoned, "zones_per_domain") == std::to_string(kyber.zones_per_domain.value));
  CHECK(std::stod(property(zoned, "inter_zone_bw")) == kyber.inter_zone_bw.value);
  CHECK(property(plain, "zones_per_domain") == "1");
  CHECK(property(plain, "inter_zone_bw").empty());

  // Without --system: GB200 NVL72, as before systems.
  const auto r = run_nvlsim("platform --racks 2 -o " + (dir / "default.xml").string(), dir);
  REQUIRE(r.status == 0);
  CHECK(property((dir / "default.xml").string(), "system") == "gb200-nvl72");
}

TEST_CASE("the owner cost model takes the platform's system's rack price and power unless given",
          "[e2e][systems][cost]") {
  const auto dir = scratch_dir("systems-cost");
  const auto& nvl36x2 = nvlsim::system_named("gb200-nvl36x2");
  const std::string platform = write_platform(nvl36x2, dir);
  const std::string run = "--quiet --policy per-gpu --platform " + platform + " --trace " +
                          data_file("theta_100.swf") + " --fit --out ";
  REQUIRE(run_nvlsim(run + (dir / "system").string(), dir).status == 0);
  auto cost = run_json(dir / "system")["cost_model"];
  CHECK(cost["rack_price_usd"].get<double>() == nvl36x2.rack_price_usd.value);
  CHECK(cost["rack_power_kw"].get<double>() == nvl36x2.rack_power_kw.value);
  CHECK(cost["gpus_per_rack"] == 36);  // a 72-GPU domain over two racks
  const double system_price = cost["gpu_hour_usd"].get<double>();

  REQUIRE(run_nvlsim(run + (dir / "given").string() + " --rack-price-usd 0 --rack-power-kw 36", dir).status ==
          0);
  cost = run_json(dir / "given")["cost_model"];
  CHECK(cost["rack_price_usd"].get<double>() == 0);
  CHECK(cost["rack_power_kw"].get<double>() == 36);
  CHECK(cost["gpu_hour_usd"].get<double>() == Approx(0.1));  // 36 kW x US$0.10 / 36 GPUs
  CHECK(cost["gpu_hour_usd"].get<double>() != system_price);

  // The same trace on GB200 NVL72 racks prices a GPU-hour with its own rack.
  const auto& gb200 = nvlsim::default_system();
  const std::string nvl72 = write_platform(gb200, dir);
  REQUIRE(run_nvlsim("--quiet --policy per-gpu --platform " + nvl72 + " --trace " +
                         data_file("theta_100.swf") + " --fit --out " + (dir / "nvl72").string(),
                     dir)
              .status == 0);
  cost = run_json(dir / "nvl72")["cost_model"];
  CHECK(cost["rack_price_usd"].get<double>() == gb200.rack_price_usd.value);
  CHECK(cost["gpus_per_rack"] == 72);
}

TEST_CASE("a format 2 platform file without a system is GB200 NVL72", "[e2e][systems][platform]") {
  const auto dir = scratch_dir("systems-none");
  // A file as nvlsim wrote it before systems: the same properties but for the three new ones.
  std::istringstream written(slurp(write_platform(nvlsim::default_system(), dir)));
  std::ofstream old(dir / "old.xml");
  for (std::string line; std::getline(written, line);)
    if (line.find("nvlsim.system") == std::string::npos &&
        line.find("nvlsim.racks_per_domain") == std::string::npos &&
        line.find("nvlsim.zones_per_domain") == std::string::npos)
      old << line << "\n";
  old.close();
  const auto r =
      run_nvlsim("--quiet --policy per-gpu --platform " + (dir / "old.xml").string() + " --trace " +
                     data_file("theta_100.swf") + " --fit --out " + (dir / "out").string(),
                 dir);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto run = run_json(dir / "out");
  CHECK(run["platform"]["system"] == "gb200-nvl72");
  CHECK(run["platform"]["racks"] == 2);
  CHECK(run["cost_model"]["rack_price_usd"].get<double>() == nvlsim::default_system().rack_price_usd.value);
}

TEST_CASE("each system's block topology.conf, given to Slurm's format reader, replays as the built-in blocks",
          "[e2e][systems]") {
  for (const SystemFacts& system : nvlsim::systems()) {
    DYNAMIC_SECTION(system.name) {
      const auto dir = scratch_dir("systems-blocks-" + std::string(system.name));
      const std::string blocks = (dir / "blocks.conf").string();
      const std::string platform = write_platform(system, dir, " --write-block-topology " + blocks);
      // One block per NVLink domain, each listing the domain's trays.
      const std::string text = slurp(blocks);
      const int trays = system.trays_per_domain.value;
      CHECK(text.find("BlockName=block1 Nodes=tray-[" + std::to_string(trays) + "-" +
                      std::to_string(2 * trays - 1) + "]\n") != std::string::npos);
      CHECK(text.find("BlockSizes=" + std::to_string(trays) + "," + std::to_string(2 * trays) + "\n") !=
            std::string::npos);
      const std::string run = "--quiet --platform " + platform + " --trace " + data_file("theta_100.swf") +
                              " --fit --policy block --policy sub-block --out ";
      auto r = run_nvlsim(run + (dir / "built-in").string(), dir);
      INFO(r.err);
      REQUIRE(r.status == 0);
      r = run_nvlsim(run + (dir / "file").string() + " --topology " + blocks, dir);
      INFO(r.err);
      REQUIRE(r.status == 0);
      CHECK(slurp((dir / "file/jobs.csv").string()) == slurp((dir / "built-in/jobs.csv").string()));
    }
  }
}
