#include "sim/sweep/sweep_collect.hpp"

#include "sim/sweep/run_results.hpp"
#include "sim/sweep/sweep_csv.hpp"
#include "sim/whole_file.hpp"

namespace nvlsim {

Collected collect_sweep(const std::filesystem::path& dir, const SweepPlan& plan) {
  const SweepResults results = read_results(dir, plan);
  write_whole_file(dir / "sweep.csv", [&](std::ostream& out) { write_sweep_csv(out, plan, results); });
  write_whole_file(dir / "sweep_summary.csv",
                   [&](std::ostream& out) { write_sweep_summary_csv(out, plan, results); });
  return {results.finished.size(), results.unfinished};
}

}  // namespace nvlsim
