#include "sim/sweep/plan_file.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "models/input_error.hpp"
#include "models/json_file.hpp"
#include "sim/whole_file.hpp"

namespace nvlsim {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

fs::path plan_path(const fs::path& dir) {
  return dir / "sweep-grid.json";
}
fs::path run_dir(const fs::path& dir, const SweepRun& run) {
  return dir / "runs" / run.id;
}
fs::path done_path(const fs::path& run_dir) {
  return run_dir / "run-done.json";
}
fs::path error_path(const fs::path& run_dir) {
  return run_dir / "error.txt";
}

void write_plan(const fs::path& dir, const SweepPlan& plan) {
  Json cells = Json::array();
  for (const CellSettings& c : plan.cells) cells.push_back(Json(c));
  Json runs = Json::array();
  for (const SweepRun& r : plan.runs) runs.push_back({{"cell", r.cell}, {"seed", r.seed}, {"run", r.id}});
  const Json json = {{"nvlsim_version", NVLSIM_VERSION},
                     {"grid", plan.grid},
                     {"varying", plan.varying},
                     {"policies", plan.policies},
                     {"seeds", plan.seeds},
                     {"cells", cells},
                     {"runs", runs}};
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create: {}", dir.string(), ec.message()));
  write_whole_file(plan_path(dir), [&](std::ostream& out) { out << json.dump(2) << '\n'; });
}

SweepPlan read_plan(const fs::path& dir) {
  const fs::path path = plan_path(dir);
  const Json json = read_json_file<Json>(path);
  try {
    SweepPlan plan;
    plan.grid = json.at("grid").get<std::string>();
    plan.varying = json.at("varying").get<std::vector<std::string>>();
    plan.policies = json.at("policies").get<std::vector<std::string>>();
    plan.seeds = json.at("seeds").get<std::vector<std::uint64_t>>();
    for (const Json& c : json.at("cells")) plan.cells.push_back(c.get<CellSettings>());
    for (const Json& r : json.at("runs")) {
      plan.runs.push_back({r.at("cell").get<std::size_t>(), r.at("seed").get<std::uint64_t>(),
                           r.at("run").get<std::string>()});
      const SweepRun& run = plan.runs.back();
      if (run.cell >= plan.cells.size()) throw std::out_of_range("a run names no cell");
      // The id names a folder: nothing but the 16 hex digits run_id() writes may reach a path.
      if (run.id.size() != 16 || run.id.find_first_not_of("0123456789abcdef") != std::string::npos)
        throw std::out_of_range("a run id is not 16 hex digits");
    }
    return plan;
  } catch (const std::exception& e) {
    throw InputError(
        fmt::format("{}: not a sweep plan (written by nvlsim sweep): {}", path.string(), e.what()));
  }
}

bool run_finished(const fs::path& dir, const SweepRun& run) {
  std::error_code ec;
  return fs::exists(done_path(run_dir(dir, run)), ec);
}

}  // namespace nvlsim
