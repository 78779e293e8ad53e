#include "analysis/run_manifest.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

namespace nvlsim {

void write_run_json(std::ostream& out, const RunManifest& m) {
  nlohmann::ordered_json j;
  j["nvlsim_version"] = m.version;
  j["command_line"] = m.command_line;
  j["seed"] = m.seed;
  j["platform"] = {{"source", m.platform.source},
                   {"system", m.platform.system},
                   {"racks", m.platform.racks},
                   {"domains", m.platform.domains},
                   {"trays", m.platform.trays},
                   {"gpus", m.platform.gpus},
                   {"gpus_per_tray", m.platform.gpus_per_tray},
                   {"nvlink_gpu_bw_bytes_per_s", m.platform.nvlink_gpu_bw},
                   {"nic_bw_bytes_per_s", m.platform.nic_bw},
                   {"ib_oversubscription", m.platform.ib_oversubscription},
                   {"partial_operation", m.platform.partial_operation}};
  j["trace"] = {{"source", m.trace.source},
                {"lines_read", m.trace.lines_read},
                {"jobs", m.trace.jobs},
                {"skipped_lines", m.trace.skipped},
                {"first_skipped", m.trace.first_skipped},
                {"procs_per_gpu", m.trace.procs_per_gpu},
                {"fit", m.trace.fit}};
  j["job_model"] = {
      {"comm_fraction", m.comm_fraction},
      {"comm_rounds", m.comm_rounds},
      {"collective", m.collective},
      {"walltime_kill", m.walltime_kill},
      // JSON has no infinity: null is "no limit", as Slurm's MaxTime=INFINITE.
      {"default_time_seconds",
       std::isfinite(m.default_time) ? nlohmann::ordered_json(m.default_time) : nullptr},
      {"request_shape", m.request_shape},
      {"cpus_per_gpu", m.cpus_per_gpu},
      {"slurm_version", m.slurm_version},
      {"gpu_sharing", m.gpu_sharing},
      // Only shard splits GPUs into a count the run chose: null otherwise.
      {"shards_per_gpu", m.shards_per_gpu > 0 ? nlohmann::ordered_json(m.shards_per_gpu) : nullptr},
      {"sharing_interference",
       m.sharing_interference >= 0 ? nlohmann::ordered_json(m.sharing_interference) : nullptr}};
  auto& classes = j["job_classes"] = {{"source", m.classes_source}, {"default", m.default_class}};
  auto& list = classes["classes"] = nlohmann::ordered_json::array();
  for (const auto& c : m.classes)
    list.push_back({{"name", c.name},
                    {"comm_fraction", c.comm_fraction},
                    {"collective", c.collective},
                    {"segment_nodes", c.segment_nodes}});
  j["topology"] = m.topology;
  j["cost_model"] = {{"basis", m.cost.rental_gpu_hour_usd ? "rental" : "owner"},
                     {"rack_price_usd", m.cost.rack_price_usd},
                     {"amortization_years", m.cost.amortization_years},
                     {"rack_power_kw", m.cost.rack_power_kw},
                     {"power_usd_per_kwh", m.cost.power_usd_per_kwh},
                     {"gpus_per_rack", m.gpus_per_rack},
                     {"gpu_hour_usd", m.gpu_hour_usd}};
  auto& failures = j["failures"] = {{"source", m.failures.source},
                                    {"mode", m.failures.mode},
                                    {"replayed_events", m.failures.replayed_events},
                                    {"rate_scale", m.failures.rate_scale},
                                    {"checkpoint_interval_seconds", m.failures.checkpoint_interval},
                                    {"restart_overhead_seconds", m.failures.restart_overhead},
                                    {"max_requeue", m.failures.max_requeue}};
  auto& parts = failures["components"] = nlohmann::ordered_json::array();
  for (const auto& c : m.failures.components)
    parts.push_back({{"component", c.name},
                     {"mtbf_hours", c.mtbf_hours},
                     {"life", c.life},
                     {"mttr_hours", c.mttr_hours},
                     {"repair", c.repair}});
  j["timeseries_step_seconds"] = m.sample_step;
  j["platform_load_seconds"] = m.platform_load_seconds;
  auto& policies = j["policies"] = nlohmann::ordered_json::array();
  for (const auto& p : m.policies) policies.push_back({{"name", p.name}, {"wall_seconds", p.wall_seconds}});
  out << j.dump(2) << '\n';
}

}  // namespace nvlsim
