// Every kind of bad input nvlsim accepts, run as a user would: each must end with its exit status, a
// message naming what is wrong (file and line where there is one), and an output folder that holds either
// one complete run or nothing at all. docs/inputs.md lists the limits these cases probe.

#include <sys/wait.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "nvlsim_process.hpp"

namespace fs = std::filesystem;

namespace {

struct BadInput {
  std::string name;
  std::vector<std::pair<std::string, std::string>> files;  // written into the case's folder first
  std::string args;                                        // after --quiet --out out
  int status = 2;
  std::vector<std::string> said;  // each must appear in stderr
};

std::string swf_line(const std::string& id, const std::string& run, const std::string& procs) {
  return id + " 0 0 " + run + " " + procs + " -1 -1 " + procs + " 200 -1 1 1 1 1 1 -1 -1 -1\n";
}

const std::string kJob = swf_line("1", "100", "8");

// A trace declaring field 19 (gpu_milli) with one job of `procs` processors asking `milli` of a GPU.
std::string fractional_trace(const std::string& procs, const std::string& milli) {
  const std::string line = swf_line("1", "100", procs);
  return "; Field19: gpu_milli\n" + line.substr(0, line.size() - 1) + " " + milli + "\n";
}

// Platform XML as SimGrid wants it (without the DOCTYPE it stops at the first element), and its parts.
const std::string kPlatformHead =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n";
const std::string kLink = "<link id=\"l\" bandwidth=\"1Bps\" latency=\"0s\"/>";
const std::string kRoute = "<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>";

// A root zone carrying nvlsim's properties, "key=value" each, and any more elements.
std::string nvlsim_platform(const std::vector<std::string>& properties, const std::string& elements = "") {
  std::string zone = kPlatformHead + "<zone id=\"nvlsim\" routing=\"Full\">\n";
  for (const std::string& p : properties) {
    const auto eq = p.find('=');
    zone += "<prop id=\"nvlsim." + p.substr(0, eq) + "\" value=\"" + p.substr(eq + 1) + "\"/>\n";
  }
  return zone + elements + "</zone></platform>\n";
}

// One GB200 NVL72 domain's properties, and what they describe.
const std::vector<std::string> kOneDomain = {"format_version=2",
                                             "domains=1",
                                             "trays_per_domain=18",
                                             "gpus_per_tray=4",
                                             "nvlink_links_per_gpu=18",
                                             "nvlink_link_bw=5e10",
                                             "nvlink_latency=0",
                                             "nic_bw=5e10",
                                             "ib_latency=0",
                                             "ib_oversubscription=1",
                                             "nvlink_sharp=0",
                                             "ib_switch_radix=64"};

std::vector<std::string> with(std::vector<std::string> properties, const std::string& more) {
  properties.push_back(more);
  return properties;
}

std::vector<BadInput> catalogue() {
  return {
      // Traces.
      {"a field that is no number",
       {{"t.swf", swf_line("1", "abc", "8")}},
       "--trace t.swf",
       2,
       {"t.swf:1: field 4 (run time): expected a number, got \"abc\""}},
      {"a line with too few fields",
       {{"t.swf", "1 0 0 100 8\n"}},
       "--trace t.swf",
       2,
       {"t.swf:1: expected 18 fields, got 5"}},
      {"a trace without jobs",
       {{"t.swf", "; Version: 2.2\n"}},
       "--trace t.swf",
       2,
       {"t.swf: no jobs (1 lines read)"}},
      {"a trace whose lines were all skipped",
       {{"t.swf", "x\n"}},
       "--trace t.swf --skip-bad-lines",
       2,
       {"t.swf: no jobs (1 lines read, 1 bad lines skipped)"}},
      {"a job number used twice",
       {{"t.swf", kJob + swf_line("2", "100", "8") + kJob}},
       "--trace t.swf",
       2,
       {"t.swf:3: field 1 (job number): job 1 is already on line 1"}},
      {"a job of 2^63 - 1 processors",
       {{"t.swf", swf_line("1", "100", "9223372036854775807")}},
       "--trace t.swf --procs-per-gpu 1048576",
       2,
       {"t.swf:1: field 5 (allocated processors): 8796093022208 is too many GPUs"}},
      {"a MaxProcs header too large to fit",
       {{"t.swf", "; MaxProcs: 9223372036854775807\n" + kJob}},
       "--trace t.swf --fit",
       2,
       {"t.swf: --fit: 9223372036854775807 processors would need"}},
      {"a trace file that does not exist", {}, "--trace missing.swf", 2, {"missing.swf"}},
      {"a job larger than the platform is rejected, not dropped",
       {{"t.swf", swf_line("1", "100", "1000") + swf_line("2", "100", "8")}},
       "--trace t.swf",
       0,
       {}},
      {"a fractional request beyond one GPU",
       {{"t.swf", fractional_trace("1", "1001")}},
       "--trace t.swf",
       2,
       {"t.swf:2: field 19 (gpu_milli): must be 1 to 1000 (thousandths of one GPU), or -1 for whole GPUs, "
        "got \"1001\""}},
      {"a fractional request that is no integer",
       {{"t.swf", fractional_trace("1", "0.5")}},
       "--trace t.swf",
       2,
       {"t.swf:2: field 19 (gpu_milli): expected an integer, got \"0.5\""}},
      {"part of a GPU for a job of several",
       {{"t.swf", fractional_trace("8", "500")}},
       "--trace t.swf",
       2,
       {"t.swf:2: field 19 (gpu_milli): part of a GPU needs a job of 1 processor, field 5 (allocated "
        "processors) is 8"}},
      {"a 19th field without its header line",
       {{"t.swf", fractional_trace("1", "500").substr(sizeof("; Field19: gpu_milli\n") - 1)}},
       "--trace t.swf",
       2,
       {"t.swf:1: expected 18 fields, got 19"}},
      {"a field 19 declaration naming another field",
       {{"t.swf", "; Field19: shards\n" + kJob}},
       "--trace t.swf --skip-bad-lines",
       2,
       {"t.swf:1: header Field19: expected gpu_milli (thousandths of one GPU), got \"shards\""}},
      {"a fractional request replays as a whole GPU",
       {{"t.swf", fractional_trace("1", "250")}},
       "--trace t.swf",
       0,
       {}},
      // Platforms, topologies, policies.
      {"a platform that is not XML",
       {{"p.xml", "<platform"}},
       "--platform p.xml",
       2,
       {"p.xml", "Parse error"}},
      {"a platform file that does not exist",
       {},
       "--platform nope.xml",
       2,
       {"nope.xml: cannot open: No such file or directory"}},
      {"a platform that is a folder",
       {},
       "--platform .",
       2,
       {".: is a folder, expected a platform XML file"}},
      {"a platform that is a device",
       {},
       "--platform /dev/zero",
       2,
       {"/dev/zero: not a regular file, expected a platform XML file"}},
      {"a platform cut off inside a tag",
       {{"p.xml", kPlatformHead + "<zone id=\"z\" routing=\"Full\"><prop id=\"nvlsim.format_version\" val"}},
       "--platform p.xml",
       2,
       {"p.xml: Parse error at p.xml:4", "Bad attribute `val'"}},
      {"a platform of a system nvlsim does not know",
       {{"p.xml", nvlsim_platform(with(kOneDomain, "system=gb100-nvl8"))}},
       "--platform p.xml",
       2,
       {"p.xml: property nvlsim.system: unknown system \"gb100-nvl8\" (known: gb200-nvl72, "}},
      {"a platform whose racks per domain do not divide its trays",
       {{"p.xml", nvlsim_platform(with(kOneDomain, "racks_per_domain=4"))}},
       "--platform p.xml",
       2,
       {"p.xml: property nvlsim.racks_per_domain: 4 does not divide the domain's 18 trays"}},
      {"a platform of zones without the bandwidth between them",
       {{"p.xml", nvlsim_platform(with(kOneDomain, "zones_per_domain=2"))}},
       "--platform p.xml",
       2,
       {"p.xml: property nvlsim.inter_zone_bw: missing: a domain of 2 zones needs the bandwidth between "
        "them"}},
      {"a platform with an element SimGrid does not know",
       {{"p.xml", kPlatformHead + "<zone id=\"z\" routing=\"Full\"><bogus/></zone></platform>\n"}},
       "--platform p.xml",
       2,
       {"p.xml: Parse error at p.xml:4"}},
      // SimGrid aborts on these three rather than throwing.
      {"a platform declaring a link twice",
       {{"p.xml",
         kPlatformHead + "<zone id=\"z\" routing=\"Full\">" + kLink + kLink + "</zone></platform>\n"}},
       "--platform p.xml",
       2,
       {"p.xml: SimGrid cannot load it: Link 'l' declared several times in the platform."}},
      {"a platform declaring a route twice",
       {{"p.xml", kPlatformHead + "<zone id=\"z\" routing=\"Full\"><host id=\"a\" speed=\"1f\"/>" +
                      "<host id=\"b\" speed=\"1f\"/>" + kLink + kRoute + kRoute + "</zone></platform>\n"}},
       "--platform p.xml",
       2,
       {"p.xml: SimGrid cannot load it: The route between a and b already exists"}},
      {"a platform zone of an unknown routing",
       {{"p.xml", kPlatformHead + "<zone id=\"z\" routing=\"Foo\"></zone></platform>\n"}},
       "--platform p.xml",
       2,
       {"p.xml: SimGrid cannot load it: Not a valid model! (a <zone> has a routing attribute SimGrid does "
        "not "
        "know; it knows Full, Floyd"}},
      {"a platform without SimGrid's DOCTYPE",
       {{"p.xml", "<?xml version=\"1.0\"?>\n<platform version=\"4.1\"></platform>\n"}},
       "--platform p.xml",
       2,
       {"p.xml: Parse error at p.xml:2", "in prolog",
        "a platform file starts with <?xml version='1.0'?> and "
        "<!DOCTYPE platform"}},
      {"a platform file cut short",
       {{"p.xml", kPlatformHead + "<zone id=\"z\" routing=\"Full\">\n"}},
       "--platform p.xml",
       2,
       {"p.xml: Parse error at p.xml:5", "(the file ends inside an element: was it cut short?)"}},
      // SimGrid loads these and would abort in the middle of the simulation.
      {"a platform link of negative bandwidth",
       {{"p.xml", nvlsim_platform(kOneDomain, "<link id=\"x\" bandwidth=\"-5Bps\" latency=\"0s\"/>\n")}},
       "--platform p.xml",
       2,
       {"p.xml: link x: bandwidth must be positive and finite, got -5 B/s"}},
      {"a platform link of negative latency",
       {{"p.xml", nvlsim_platform(kOneDomain, "<link id=\"x\" bandwidth=\"5Bps\" latency=\"-1s\"/>\n")}},
       "--platform p.xml",
       2,
       {"p.xml: link x: latency must be at least 0 and finite, got -1 s"}},
      {"a platform host of negative speed",
       {{"p.xml", nvlsim_platform(kOneDomain, "<host id=\"h\" speed=\"-1f\"/>\n")}},
       "--platform p.xml",
       2,
       {"p.xml: host h: speed must be positive and finite, got -1 flop/s"}},
      {"an unknown policy", {}, "--policy nonsense", 2, {"unknown policy 'nonsense'"}},
      {"an unknown policy parameter", {}, "--policy sub-block:nosuch=1", 2, {"unknown parameter 'nosuch'"}},
      {"a policy file of the wrong shape",
       {{"p.json", "[1]"}},
       "--policy-file p.json",
       2,
       {"p.json: expected {\"policies\": [...]}"}},
      {"a hostlist of two billion nodes",
       {{"t.conf", "SwitchName=s0 Nodes=n[01-2147483647]\n"}},
       "--topology t.conf",
       2,
       {"t.conf:1: hostlist names more than 262144 nodes"}},
      {"a topology naming an unknown switch",
       {{"t.conf", "SwitchName=s0 Switches=s1\n"}},
       "--topology t.conf",
       2,
       {"t.conf:1: unknown switch 's1'"}},
      // Failures and classes.
      {"a failure model that is not JSON",
       {{"f.json", "{"}},
       "--failures f.json",
       2,
       {"f.json: not valid JSON"}},
      {"a failure model with a NUL byte after the document",
       {{"f.json", std::string("{}\0{", 4)}},
       "--failures f.json",
       2,
       {"f.json: not valid JSON: a NUL byte at offset 2 (is this a binary file?)"}},
      {"a failure model that is a device without end",
       {},
       "--failures /dev/zero",
       2,
       {"/dev/zero: more than the 64 MiB a JSON file may have"}},
      {"a failure replay of a GPU that does not exist",
       {{"f.csv", "time,component,id,duration\n10,gpu,99999,5\n"}},
       "--failures f.csv",
       2,
       {"f.csv:2: field 3 (id): expected a gpu id from 0 to 575"}},
      {"a failure replay time that is no number",
       {{"f.csv", "time,component,id,duration\nx,gpu,1,5\n"}},
       "--failures f.csv",
       2,
       {"f.csv:2: field 1 (time)"}},
      {"a class comm_fraction beyond a double",
       {{"c.json", "{\"classes\":[{\"name\":\"a\",\"comm_fraction\":1e999}]}"}},
       "--classes c.json",
       2,
       {"c.json: not valid JSON"}},
      {"a failure model with a Weibull shape of 1e-300",
       {{"f.json",
         "{\"components\":{\"gpu\":{\"mtbf_hours\":50000,\"life\":\"weibull\",\"weibull_shape\":1e-300}}}"}},
       "--failures f.json",
       2,
       {"f.json", "weibull_shape"}},
      {"a failure model with a one-second MTBF",
       {{"f.json", "{\"components\":{\"gpu\":{\"mtbf_hours\":0.0003}}}"}},
       "--failures f.json",
       2,
       {"f.json", "mtbf_hours"}},
      {"a trace line of two megabytes",
       {{"t.swf", std::string(2 << 20, '1')}},
       "--trace t.swf",
       2,
       {"t.swf:1: line longer than 1048576 bytes"}},
      // Flags.
      {"an unknown flag", {}, "--bogus", 2, {"--bogus: unknown option"}},
      {"a flag given twice", {}, "--seed 1 --seed 2", 2, {"--seed: given twice"}},
      {"a NaN", {}, "--comm-fraction nan", 2, {"--comm-fraction: must be a finite number"}},
      {"an infinite price", {}, "--gpu-hour-usd=inf", 2, {"--gpu-hour-usd: must be a finite number"}},
      {"a NaN failure-rate scale",
       {},
       "--failures llama3 --failure-rate-scale nan",
       2,
       {"--failure-rate-scale: must be a finite number"}},
      {"a failure-rate scale that leaves MTBFs of seconds",
       {},
       "--failures llama3 --failure-rate-scale 1e9",
       2,
       {"nvlsim: --failure-rate-scale: makes the gpu MTBF"}},
      {"a policy file number beyond a double",
       {{"p.json", "{\"policies\": [79e879]}"}},
       "--policy-file p.json",
       2,
       {"p.json: not valid JSON"}},
      {"a negative checkpoint interval",
       {},
       "--checkpoint-interval -5",
       2,
       {"--checkpoint-interval: must be"}},
      {"too many rounds", {}, "--comm-rounds 100000", 2, {"--comm-rounds: must be between 1 and 1000"}},
      {"a sample step of a nanosecond",
       {},
       "--sample 1e-9",
       2,
       {"sample step 1e-09 s", "use a step of at least"}},
      {"a platform written to a full disk",
       {},
       "platform --racks 2 -o /dev/full",
       1,
       {"/dev/full: write failed: No space left on device"}},
      {"a system nvlsim does not know",
       {},
       "platform --system gb100-nvl8 --racks 2 -o p.xml",
       2,
       {"nvlsim: --system: unknown system \"gb100-nvl8\" (known: gb200-nvl72, gb300-nvl72, gb200-nvl36x2, "
        "vr-nvl144, vr-ultra-nvl576)"}},
      {"an odd number of racks of a two-rack NVLink domain",
       {},
       "platform --system gb200-nvl36x2 --racks 3 -o p.xml",
       2,
       {"nvlsim: --racks: gb200-nvl36x2 joins 2 racks into one NVLink domain: must be a multiple of 2, got "
        "3"}},
      {"more racks of NVL576 than a platform may hold",
       {},
       "platform --system vr-ultra-nvl576 --racks 4096 -o p.xml",
       2,
       {"nvlsim: --racks: 4096 racks of vr-ultra-nvl576 make 294912 trays and 589824 GPUs, more than a "
        "platform "
        "may have (262144 trays, 1048576 GPUs)"}},
      {"a topology written to a full disk",
       {},
       "platform --racks 2 --write-topology /dev/full",
       1,
       {"/dev/full: write failed: No space left on device"}},
      {"a workload written to a full disk",
       {},
       "workload mix --days 0.1 --gpus 576 -o /dev/full",
       1,
       {"/dev/full: write failed: No space left on device"}},
      {"a workload written into a missing folder",
       {},
       "workload mix --days 0.1 --gpus 576 -o no/such/mix.swf",
       2,
       {"no/such/mix.swf: cannot write: No such file or directory"}},
      // Output.
      {"an output folder under a file",
       {{"file", "x"}},
       "--out file/sub",
       2,
       {"file/sub: cannot create directory"}},
  };
}

// The regular files under `dir` (none when it does not exist).
std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  if (!fs::exists(dir)) return names;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) names.push_back(entry.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("the bad-input catalogue: status, message and an output of one run or nothing", "[errors][e2e]") {
  const fs::path root = nvlsim::test::scratch_dir("catalogue");
  int index = 0;
  for (const BadInput& c : catalogue()) {
    DYNAMIC_SECTION(c.name) {
      const fs::path dir = root / std::to_string(index);
      fs::create_directories(dir);
      for (const auto& [name, content] : c.files) std::ofstream(dir / name) << content;
      // Relative names, run from the case's folder, as a user types them.
      const bool own_out = c.args.find("--out") != std::string::npos;
      const bool other_command = c.args.starts_with("platform ") || c.args.starts_with("workload ");
      const std::string run_flags = other_command ? ""
                                    : own_out     ? "--quiet --policy per-gpu "
                                                  : "--quiet --policy per-gpu --out out ";
      const std::string cmd = "cd " + dir.string() + " && " + NVLSIM_BINARY + " " + run_flags + c.args +
                              " >stdout.txt 2>stderr.txt";
      const int raw = std::system(cmd.c_str());
      const struct {
        int status;
        std::string err;
      } r{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, nvlsim::test::slurp((dir / "stderr.txt").string())};
      INFO(r.err);
      CHECK(r.status == c.status);
      for (const std::string& words : c.said) CHECK(r.err.find(words) != std::string::npos);
      const std::vector<std::string> files = files_in(dir / "out");
      if (c.status == 0) {
        CHECK(std::ranges::find(files, "run.json") != files.end());
      } else {
        CHECK(files.empty());
      }
      for (const std::string& name : files) CHECK(!name.ends_with(".partial"));
    }
    ++index;
  }
}
