// Run ids: FNV-1a over every setting, the policies, the seed and the input files' contents.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "nvlsim_process.hpp"
#include "sim/cli/sweep_keys.hpp"
#include "sim/sweep/run_id.hpp"
#include "sim/sweep/sweep_plan.hpp"

using namespace nvlsim;
namespace fs = std::filesystem;

TEST_CASE("FNV-1a 64 gives the reference values", "[sweep][run_id]") {
  // The test vectors of the FNV reference code (Noll, fnv_test.c).
  CHECK(fnv1a("") == 0xcbf29ce484222325ULL);
  CHECK(fnv1a("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a("foobar") == 0x85944171f73967e8ULL);
  CHECK(fnv1a("bar", fnv1a("foo")) == fnv1a("foobar"));
}

TEST_CASE("a run's id changes with any setting, policy, seed or input file, and only then",
          "[sweep][run_id]") {
  const GridKeys keys = sweep_grid_keys();
  const fs::path dir = test::scratch_dir("sweep-run-id");
  const fs::path trace = dir / "t.swf";
  std::ofstream(trace) << "1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n";
  const std::map<std::string, std::string> settings = {{"trace", trace.string()}, {"comm-fraction", "0.5"}};
  const std::vector<std::string> policies = {"per-gpu", "block"};
  FileDigests files;
  const std::string id = run_id(run_text(settings, policies, 1, keys, files));
  CHECK(id.size() == 16);
  FileDigests again;
  CHECK(run_id(run_text(settings, policies, 1, keys, again)) == id);
  auto other = settings;
  other["comm-fraction"] = "0.6";
  CHECK(run_id(run_text(other, policies, 1, keys, again)) != id);
  CHECK(run_id(run_text(settings, policies, 2, keys, again)) != id);
  CHECK(run_id(run_text(settings, std::vector<std::string>{"block", "per-gpu"}, 1, keys, again)) != id);
  std::ofstream(trace) << "1 0 0 11 4 -1 -1 4 20 -1 1 1 1 -1 1 -1 -1 -1\n";
  FileDigests changed;
  CHECK(run_id(run_text(settings, policies, 1, keys, changed)) != id);
  // The text hashed says what went in.
  const std::string text = run_text(settings, policies, 1, keys, changed);
  CHECK(text.find("comm-fraction=0.5\n") != std::string::npos);
  CHECK(text.find("policy=per-gpu\npolicy=block\nseed=1\n") != std::string::npos);
  CHECK(text.find("file trace=") != std::string::npos);
}

TEST_CASE("the runs of a grid have distinct ids", "[sweep][run_id]") {
  const GridKeys keys = sweep_grid_keys();
  const SweepPlan plan = make_plan(
      parse_grid("axes:\n  comm-fraction: [0.1, 0.2]\n  comm-rounds: [1, 2]\nseeds: 3\n", "g.yaml", keys),
      keys);
  std::set<std::string> ids;
  for (const SweepRun& r : plan.runs) ids.insert(r.id);
  CHECK(ids.size() == 12);
}
