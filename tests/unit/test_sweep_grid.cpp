// Sweep grids: their settings as the command line defines them, the expansion into cells and runs, and
// errors naming the file, line and field.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/input_error.hpp"
#include "nvlsim_process.hpp"
#include "sim/cli/sweep_keys.hpp"
#include "sim/cli/sweep_steps.hpp"
#include "sim/sweep/sweep_plan.hpp"

using namespace nvlsim;
namespace fs = std::filesystem;

namespace {

const GridKeys& keys() {
  static const GridKeys k = sweep_grid_keys();
  return k;
}

Grid grid(const std::string& text, const fs::path& file = "g.yaml") {
  return parse_grid(text, file, keys());
}

std::string error_of(const std::string& text) {
  try {
    grid(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("grid keys are the command line's options", "[sweep][grid]") {
  const GridKey* comm = keys().find("comm-fraction");
  REQUIRE(comm != nullptr);
  CHECK(comm->takes_value);
  CHECK(!comm->names_file);
  REQUIRE(keys().find("fit") != nullptr);
  CHECK(!keys().find("fit")->takes_value);
  CHECK(!keys().find("no-walltime-kill")->takes_value);
  CHECK(!keys().find("platform.nvlink-sharp")->takes_value);
  CHECK(keys().find("cfg")->takes_value);
  CHECK(keys().find("policy-file")->takes_value);
  for (const char* file : {"trace", "platform", "policy-file", "topology", "classes", "failures"}) {
    INFO(file);
    REQUIRE(keys().find(file) != nullptr);
    CHECK(keys().find(file)->names_file);
  }
  for (const char* given : {"mix.load", "mix.days", "mix.gpus", "platform.racks", "platform.system", "cfg"})
    CHECK(keys().find(given) != nullptr);
  // What the sweep sets for every run.
  for (const char* own :
       {"seed", "out", "policy", "parallel", "quiet", "mix.seed", "mix.output", "platform.output"})
    CHECK(keys().find(own) == nullptr);
}

TEST_CASE("the cross product varies the first axis slowest, then the explicit cells", "[sweep][grid]") {
  const Grid g = grid(
      "base:\n"
      "  platform: nvl72x2\n"
      "  mix.jobs: 20\n"
      "axes:\n"
      "  failure-rate-scale: [1, 3]\n"
      "  comm-fraction: [0.2, 0.5, 0.8]\n"
      "cells:\n"
      "  - {failure-rate-scale: 10, comm-fraction: 0.5}\n"
      "policies: [per-gpu, block, \"sub-block:segment=4\"]\n"
      "seeds: 3\n");
  const SweepPlan plan = make_plan(g, keys());
  REQUIRE(plan.cells.size() == 7);
  const std::pair<const char*, const char*> expected[] = {
      {"1", "0.2"}, {"1", "0.5"}, {"1", "0.8"}, {"3", "0.2"}, {"3", "0.5"}, {"3", "0.8"}, {"10", "0.5"}};
  for (std::size_t c = 0; c < plan.cells.size(); ++c) {
    INFO(c);
    CHECK(plan.cells[c].at("failure-rate-scale") == expected[c].first);
    CHECK(plan.cells[c].at("comm-fraction") == expected[c].second);
    CHECK(plan.cells[c].at("platform") == "nvl72x2");
  }
  CHECK(plan.varying == std::vector<std::string>{"failure-rate-scale", "comm-fraction"});
  CHECK(plan.policies == std::vector<std::string>{"per-gpu", "block", "sub-block:segment=4"});
  CHECK(plan.seeds == std::vector<std::uint64_t>{1, 2, 3});
  REQUIRE(plan.runs.size() == 21);
  CHECK(plan.runs[4].cell == 1);
  CHECK(plan.runs[4].seed == 2);
}

TEST_CASE("explicit cells alone, seed lists and flags", "[sweep][grid]") {
  const SweepPlan plan = make_plan(grid("cells:\n"
                                        "  - {request-shape: gpus}\n"
                                        "  - {request-shape: nodes, no-walltime-kill: true}\n"
                                        "seeds: [7, 1]\n"),
                                   keys());
  REQUIRE(plan.cells.size() == 2);
  CHECK(plan.cells[1].at("no-walltime-kill") == "true");
  CHECK(plan.varying == std::vector<std::string>{"request-shape", "no-walltime-kill"});
  CHECK(plan.seeds == std::vector<std::uint64_t>{7, 1});
  CHECK(plan.runs.size() == 4);
}

TEST_CASE("a JSON grid reads as the same YAML", "[sweep][grid]") {
  const SweepPlan yaml = make_plan(grid("axes:\n  comm-fraction: [0.1, 0.3]\nseeds: 2\n"), keys());
  const SweepPlan json = make_plan(grid("{\"axes\": {\"comm-fraction\": [0.1, 0.3]}, \"seeds\": 2}"), keys());
  CHECK(yaml.cells == json.cells);
  REQUIRE(json.runs.size() == 4);
  for (std::size_t i = 0; i < json.runs.size(); ++i) CHECK(json.runs[i].id == yaml.runs[i].id);
}

TEST_CASE("relative files resolve beside the grid and shipped names stay names", "[sweep][grid]") {
  const fs::path dir = test::scratch_dir("sweep-grid-paths");
  std::ofstream(dir / "jobs.swf") << "1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n";
  const Grid g = grid("base:\n  trace: jobs.swf\n  platform: nvl72x2\n  failures: llama3\n", dir / "g.yaml");
  REQUIRE(g.base.size() == 3);
  CHECK(g.base[0].value == (dir / "jobs.swf").string());
  CHECK(g.base[1].value == "nvl72x2");
  CHECK(g.base[2].value == "llama3");
  CHECK(grid("base:\n  failures: llama3+midplane\n", dir / "g.yaml").base[0].value == "llama3+midplane");
  CHECK(grid("base:\n  failures: model.json\n", dir / "g.yaml").base[0].value ==
        (dir / "model.json").string());
  // A missing file is named where the grid put it, for the run to report.
  CHECK(grid("base:\n  trace: none.swf\n", dir / "g.yaml").base[0].value == (dir / "none.swf").string());
}

TEST_CASE("the shipped example grid reads", "[sweep][grid]") {
  const SweepPlan plan =
      make_plan(read_grid(NVLSIM_SOURCE_DIR "/analysis/studies/example.yaml", keys()), keys());
  CHECK(plan.cells.size() == 5);
  CHECK(plan.runs.size() == 25);
  CHECK(plan.varying == std::vector<std::string>{"comm-fraction", "failure-rate-scale"});
}

TEST_CASE("every shipped study grid reads, and its cells' command lines parse", "[sweep][grid]") {
  std::size_t grids = 0;
  for (const auto& entry : fs::directory_iterator(NVLSIM_SOURCE_DIR "/analysis/studies")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    const SweepPlan plan = make_plan(read_grid(entry.path(), keys()), keys());
    CHECK_NOTHROW(check_cells(plan));
    ++grids;
  }
  CHECK(grids > 0);
}

TEST_CASE("bad grids name the file, the line and the field", "[sweep][grid][errors]") {
  CHECK(
      error_of("base:\n  platform: nvl72x2\n  comm-fraktion: 0.5\n")
          .starts_with("g.yaml:3: base.comm-fraktion: unknown setting (known: platform, trace, policy-file"));
  CHECK(error_of("axes:\n  comm-fraction: [0.2,\n    3]\n") ==
        "g.yaml:3: axes.comm-fraction[1]: must be between 0 and 1, got 3");
  CHECK(error_of("base:\n  mix.load: x\n") == "g.yaml:2: base.mix.load: not a number: \"x\"");
  CHECK(error_of("base:\n  platform.racks: 0\n") ==
        "g.yaml:2: base.platform.racks: must be between 1 and 4096, got 0");
  CHECK(error_of("base:\n  fit: maybe\n") == "g.yaml:2: base.fit: expected true or false");
  CHECK(error_of("base:\n  request-shape: round\n") ==
        "g.yaml:2: base.request-shape: expected gpus, nodes or auto, got \"round\"");
  CHECK(error_of("bases:\n  fit: true\n") ==
        "g.yaml:1: bases: unknown key (known: base, axes, cells, policies, seeds)");
  CHECK(error_of("axes:\n  load: 1\n").starts_with("g.yaml:2: axes.load: unknown setting"));
  CHECK(error_of("axes:\n  comm-fraction: 0.5\n") ==
        "g.yaml:2: axes.comm-fraction: expected a list of values");
  CHECK(error_of("axes:\n  comm-fraction: []\n") ==
        "g.yaml:2: axes.comm-fraction: expected at least one value");
  CHECK(error_of("seeds: 0\n") == "g.yaml:1: seeds: expected a count of seeds, 1 to 1000000");
  CHECK(error_of("seeds: [1, 2,\n  1]\n") == "g.yaml:2: seeds[2]: seed given twice");
  CHECK(error_of("policies: [per-gpu, \"block,tree\"]\n") ==
        "g.yaml:1: policies[1]: one policy spec per item (no commas)");
  CHECK(error_of("policies:\n  - per-gpu\n  - \"sub-block:segmnet=4\"\n") ==
        "g.yaml:3: policies[1]: policy spec 'sub-block:segmnet=4': unknown parameter 'segmnet' for sub-block "
        "(known: segment, segment_rules, spread, consolidate, round)");
  CHECK(error_of("base:\n  comm-fraction: 0.5\naxes:\n  comm-fraction: [0.5]\n") ==
        "g.yaml:2: base.comm-fraction: also an axis: give it in one place");
  CHECK(error_of("base: {a: [1}\n").starts_with("g.yaml:1: YAML syntax error at column"));
  CHECK(error_of("- a\n,\n") == "g.yaml:2: YAML syntax error at column 1: ',' outside a [...] or {...} list");
  CHECK(error_of("# nothing\n") == "g.yaml:1: empty grid (see docs/sweep.md)");
}

TEST_CASE("cells that contradict themselves or repeat are refused", "[sweep][grid][errors]") {
  const auto plan_error = [](const std::string& text) {
    try {
      make_plan(grid(text), keys());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(plan_error("base:\n  trace: mix.swf\naxes:\n  mix.load: [0.5]\n") ==
        "g.yaml:4: mix.load: mix.* settings generate the trace, and this cell also names one (line 2)");
  CHECK(plan_error("cells:\n  - {comm-fraction: 0.5}\n  - {comm-fraction: 0.5}\n")
            .ends_with("cell 1 has the same settings as cell 0"));
  // The same number written another way is the same setting.
  CHECK(plan_error("cells:\n  - {comm-fraction: 0.2}\n  - {comm-fraction: 0.3}\n  - {comm-fraction: 2e-1}\n")
            .ends_with("cell 2 has the same settings as cell 0"));
  CHECK(plan_error("cells:\n  - {comm-fraction: 0.2}\n  - {comm-fraction: 0.3}\n") == "no error");
}
