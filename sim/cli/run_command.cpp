#include "sim/cli/run_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "analysis/comparison_table.hpp"
#include "analysis/cost_model.hpp"
#include "analysis/plot_runner.hpp"
#include "analysis/run_manifest.hpp"
#include "models/input_error.hpp"
#include "models/system_catalog.hpp"
#include "platforms/platform_writer.hpp"
#include "sim/cli/number_option.hpp"
#include "sim/cli/shipped_names.hpp"
#include "sim/deferred_signals.hpp"
#include "sim/engine_setup.hpp"
#include "sim/failure_setup.hpp"
#include "sim/output_files.hpp"
#include "sim/output_stage.hpp"
#include "sim/part_files.hpp"
#include "sim/policy_outputs.hpp"
#include "sim/replay.hpp"
#include "workloads/builtin_mix.hpp"
#include "workloads/mix_generator.hpp"
#include "workloads/procs_per_gpu.hpp"
#include "workloads/trace_jobs.hpp"

namespace nvlsim {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kSkippedShown = 5;

// The class table of the run: --classes or the built-in one, with an explicit --comm-fraction or
// --collective applied to every class (the command line beats the file, as for every other default).
ClassTable run_classes(const RunOptions& options) {
  ClassTable table = options.classes_file ? load_class_table(*options.classes_file) : builtin_class_table();
  for (JobClass& c : table.classes) {
    if (options.comm_fraction_given) c.comm_fraction = options.sim.comm_fraction;
    if (options.collective_given && c.communicates) c.collective = options.sim.collective;
  }
  return table;
}

void report_skipped(const SwfTrace& trace, RunManifest::Trace& manifest_trace) {
  for (std::size_t i = 0; i < trace.skipped.size() && i < kSkippedShown; ++i)
    manifest_trace.first_skipped.push_back(trace.skipped[i].message);
  if (trace.skipped.empty()) return;
  std::string msg = fmt::format("nvlsim: skipped {} bad trace line(s):\n", trace.skipped.size());
  for (const auto& m : manifest_trace.first_skipped) msg += "  " + m + "\n";
  if (trace.skipped.size() > kSkippedShown)
    msg += fmt::format("  ... and {} more\n", trace.skipped.size() - kSkippedShown);
  std::fputs(msg.c_str(), stderr);
}

void describe_failures(const SimulationConfig& sim, double rate_scale, RunManifest::Failures& m) {
  static constexpr const char* kModes[] = {"none", "model", "replay"};
  static constexpr const char* kLife[] = {"exponential", "weibull"};
  static constexpr const char* kRepair[] = {"fixed", "exponential", "lognormal"};
  const FailureConfig& f = sim.failures;
  m.source = f.source;
  m.mode = kModes[static_cast<int>(f.mode)];
  m.replayed_events = f.replay.size();
  m.rate_scale = f.mode == FailureMode::model ? rate_scale : 1;
  m.checkpoint_interval = sim.requeue.checkpoint_interval;
  m.restart_overhead = sim.requeue.restart_overhead;
  m.max_requeue = sim.requeue.max_requeue;
  if (f.mode != FailureMode::model) return;
  for (Component c : kComponents) {
    const ComponentFailures& p = f.model[c];
    if (p.mtbf_hours > 0)
      m.components.push_back({std::string(to_string(c)), p.mtbf_hours, p.mttr_hours,
                              kLife[static_cast<int>(p.life)], kRepair[static_cast<int>(p.repair)]});
  }
}

}  // namespace

int run_command(const RunOptions& options, const std::vector<std::string>& command_line) {
  // Ends after `outputs` and the parts below, which remove what an interrupted join wrote.
  DeferredSignals deferred;
  // Checked before the simulation, so that a bad --out or a missing plot.py is not found only after it.
  OutputFiles outputs(options.out_dir);
  if (options.plots && !fs::exists(plot_script()))
    throw InputError(
        fmt::format("--plots: {} not found (it is installed in share/nvlsim beside bin/)", plot_script()));
  RunManifest manifest;
  manifest.version = NVLSIM_VERSION;
  manifest.command_line = command_line;
  manifest.seed = options.seed;
  manifest.comm_fraction = options.sim.comm_fraction;
  manifest.comm_rounds = options.sim.comm_rounds;
  manifest.collective = to_string(options.sim.collective);
  manifest.walltime_kill = options.sim.walltime_kill;
  manifest.default_time = options.default_time;
  manifest.request_shape = request_shaping_name(options.sim.request_shaping);
  manifest.cpus_per_gpu = options.sim.cpus_per_gpu;
  manifest.slurm_version = slurm_version_name(options.slurm_version);
  manifest.gpu_sharing = gpu_sharing_name(options.sim.sharing.mode);
  if (options.sim.sharing.mode == GpuSharing::shard)
    manifest.shards_per_gpu = options.sim.sharing.shards_per_gpu;
  if (options.sim.sharing.mode != GpuSharing::none)
    manifest.sharing_interference = options.sim.sharing.interference;
  manifest.sample_step = options.sample_step;

  auto engine = make_engine(options.engine_args);
  const auto load_start = std::chrono::steady_clock::now();
  const std::optional<int> builtin_racks =
      options.platform ? builtin_platform_racks(*options.platform) : std::optional<int>(kDefaultRacks);
  const LoadedPlatform platform =
      builtin_racks ? load_platform_text(*engine, platform_xml(nvl72_platform(*builtin_racks)))
                    : load_platform(*engine, *options.platform);
  manifest.platform_load_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  const auto& shape = platform.spec.shape;
  manifest.platform = {builtin_racks ? fmt::format("built-in nvl72x{}", *builtin_racks) : *options.platform,
                       platform.spec.system,
                       shape.racks(),
                       shape.domains,
                       shape.trays(),
                       shape.gpus(),
                       shape.gpus_per_tray,
                       platform.spec.fabric.nvlink_gpu_bw(),
                       platform.spec.fabric.nic_bw,
                       platform.spec.fabric.ib_oversubscription,
                       platform.spec.partial_operation};
  // A job's CPUs must fit on the trays of its GPUs, or no request with CPUs could ever be placed.
  if (const int most = shape.cpus_per_tray / shape.gpus_per_tray; options.sim.cpus_per_gpu > most)
    fail("--cpus-per-gpu",
         fmt::format("must be between 0 and {} ({} CPUs per tray over {} GPUs), got {}", most,
                     shape.cpus_per_tray, shape.gpus_per_tray, options.sim.cpus_per_gpu));
  // A rack's price and power are its system's (a domain of NVL36x2 is two racks) unless given.
  manifest.cost = system_cost(options.cost, system_named(platform.spec.system), options.rack_cost);
  manifest.gpus_per_rack = shape.gpus_per_rack();
  manifest.gpu_hour_usd = gpu_hour_usd(manifest.cost, manifest.gpus_per_rack);

  const ClassTable classes = run_classes(options);
  SimulationConfig sim = options.sim;
  sim.classes = classes.classes;
  sim.failures = failure_config({options.failures, options.failure_rate_scale, options.seed}, platform);
  describe_failures(sim, options.failure_rate_scale, manifest.failures);
  manifest.classes_source = classes.source;
  manifest.default_class = classes.classes[static_cast<std::size_t>(classes.default_class)].name;
  for (const JobClass& c : classes.classes)
    manifest.classes.push_back({c.name, c.comm_fraction,
                                c.communicates ? std::string(to_string(c.collective)) : "none",
                                c.segment_nodes});

  std::vector<Job> jobs;
  if (options.trace) {
    const bool shipped = is_shipped_mix(*options.trace);
    const SwfTrace trace = shipped ? builtin_mix_trace(shipped_mix_params())
                                   : read_swf(*options.trace, SwfReadOptions{options.skip_bad_lines});
    const int procs_per_gpu =
        options.fit ? fit_procs_per_gpu(trace, shape.gpus()) : options.procs_per_gpu.value_or(1);
    jobs = jobs_from_swf(trace, {procs_per_gpu, &classes, options.default_time});
    manifest.trace = {shipped ? "built-in mix.swf (the shipped week of workloads/mix.swf)" : *options.trace,
                      trace.lines_read,
                      jobs.size(),
                      trace.skipped.size(),
                      {},
                      procs_per_gpu,
                      options.fit};
    report_skipped(trace, manifest.trace);
  } else {
    const MixParams params = default_mix_params(shape.domains, shape.gpus(), options.seed);
    const SwfTrace trace = builtin_mix_trace(params);
    jobs = jobs_from_swf(trace, {1, &classes, options.default_time});
    const std::string shape_text = params.jobs > 0
                                       ? fmt::format("{} jobs", params.jobs)
                                       : fmt::format("{} days, as workloads/mix.swf", params.days);
    manifest.trace = {
        fmt::format("built-in mix ({}, seed {})", shape_text, options.seed), 0, jobs.size(), 0, {}};
  }

  manifest.topology = options.topology.value_or("");
  const bool progress = !options.quiet && ::isatty(STDERR_FILENO);
  const PartFiles parts(outputs.dir());
  const OutputRequest rows{manifest.gpu_hour_usd, &parts, options.sample_step, options.write_swf};
  const auto reports =
      replay({platform,
              options.platform.value_or("built-in platform"),
              jobs,
              {options.policies, options.policy_file, options.topology, options.slurm_version},
              sim,
              {options.parallel, progress},
              rows});
  std::vector<Summary> summaries;
  for (const PolicyReport& r : reports) {
    summaries.push_back(r.summary);
    manifest.policies.push_back({r.summary.policy, r.wall_seconds});
  }
  deferred.hold();
  join_outputs(outputs, reports, rows);
  outputs.write("run.json", [&](std::ostream& out) { write_run_json(out, manifest); });
  DeferredSignals::check();
  outputs.commit();
  deferred.release();
  keep_engine_until_exit(std::move(engine));
  const fs::path& out_dir = outputs.dir();
  std::fputs(comparison_table(summaries).c_str(), stdout);
  std::fflush(stdout);  // before plot.py writes to the same stream
  if (!options.quiet)
    std::fprintf(stderr, "nvlsim: wrote %s/{jobs.csv,attempts.csv,summary.csv,timeseries.csv,run.json}\n",
                 out_dir.c_str());
  if (options.plots) {
    const auto rendering = fs::file_time_type::clock::now();
    set_output_stage(OutputStage::drawing);
    const int status = render_plots(out_dir.string());
    set_output_stage(OutputStage::complete);
    // The figures belong to this run: the next one removes those it does not draw again.
    std::vector<std::string> figures;
    for (const auto& entry : fs::directory_iterator(out_dir))
      if (entry.path().extension() == ".png" && entry.last_write_time() >= rendering)
        figures.push_back(entry.path().filename().string());
    std::ranges::sort(figures);
    outputs.adopt(figures);
    if (status != 0) {
      std::fprintf(stderr, "nvlsim: --plots: %s %s %s failed with status %d\n", python_interpreter().c_str(),
                   plot_script().c_str(), out_dir.c_str(), status);
      return 1;
    }
  }
  return 0;
}

}  // namespace nvlsim
