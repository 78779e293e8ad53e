#include "sim/cli/run_options.hpp"

#include <fmt/format.h>

#include "schedulers/job_request.hpp"
#include "schedulers/policy_registry.hpp"
#include "sim/cli/engine_options.hpp"
#include "sim/cli/number_option.hpp"
#include "sim/core/gpu_sharing.hpp"

namespace nvlsim {

namespace {

std::vector<std::string> split_policies(const std::string& text) {
  if (text == "all") return policy_names();
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma == start) fail("--policy", fmt::format("empty policy name in \"{}\"", text));
    out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

CLI::Option* add_text(CLI::App& app, const std::string& name, std::optional<std::string>& target,
                      const std::string& metavar, const std::string& help) {
  return app
      .add_option_function<std::string>(
          name, [&target](const std::string& v) { target = v; }, help)
      ->type_name(metavar);
}

void add_inputs(CLI::App& run, RunOptions& o) {
  const std::string group = "Inputs";
  add_text(run, "--platform", o.platform, "FILE",
           "SimGrid platform written by `nvlsim platform` (default: built-in nvl72x8); a bare\n"
           "nvl72xN or nvl72xN.xml that is no file here is the built-in N-rack platform")
      ->group(group);
  add_text(run, "--trace", o.trace, "FILE",
           "SWF trace, plain or .gz (default: the seeded AI job mix of `nvlsim workload mix`,\n"
           "400 jobs; on 64 racks the week of workloads/mix.swf); a bare mix.swf that is no\n"
           "file here is that shipped week")
      ->group(group);
  run.add_option_function<std::vector<std::string>>(
         "--policy",
         [&o](const std::vector<std::string>& lists) {
           for (const auto& list : lists)
             for (auto& spec : split_policies(list)) o.policies.push_back(std::move(spec));
         },
         "comma-separated policy specs NAME[:key=value...], or \"all\" for every policy\n"
         "(default: per-gpu,block,sub-block); repeatable, the lists add up; one spec per\n"
         "policy, in any parameter order (details in docs/policies.md):\n" +
             policy_listing())
      ->type_name("LIST")
      ->allow_extra_args(false)
      ->take_all()
      ->group(group);
  add_text(run, "--policy-file", o.policy_file, "FILE",
           "JSON list of policy specs, rule tables included (see docs/policies.md)")
      ->group(group);
  add_text(run, "--topology", o.topology, "FILE",
           "Slurm topology.conf or topology.yaml: blocks for block/sub-block, switches for\n"
           "tree (default: one block per NVLink domain, leaf switches of the fabric)")
      ->group(group);
  run.add_option_function<std::string>(
         "--slurm-version",
         [&o](const std::string& text) {
           o.slurm_version = parse_slurm_version(text, "nvlsim: --slurm-version");
         },
         "the Slurm release whose placement rules the policies follow: 22.05 or 24.11; they\n"
         "differ for jobs with --cpus-per-gpu and under tree, and block and sub-block need\n"
         "topology/block, first in 23.11 (docs/policies.md) (default: 24.11)")
      ->type_name("V")
      ->group(group);
  add_text(run, "--classes", o.classes_file, "FILE",
           "JSON job classes and the SWF fields that map jobs to them (docs/workloads.md;\n"
           "default: pretrain, finetune, inference, hpc; unmapped jobs are hpc)")
      ->group(group);
  add_number(run, "--procs-per-gpu", o.procs_per_gpu, 1, 1 << 20, "K",
             "trace processors per GPU: a job needs ceil(processors / K) GPUs (default: 1)")
      ->group(group);
  run.add_flag("--fit", o.fit,
               "choose K so the trace's MaxProcs and largest job fit the platform;\n"
               "not with --procs-per-gpu")
      ->group(group);
  run.add_flag("--skip-bad-lines", o.skip_bad_lines,
               "skip malformed trace lines, counting and reporting each (default: stop)")
      ->group(group);
  add_number(run, "--seed", o.seed, std::uint64_t{0}, UINT64_MAX, "N",
             "seed of every random process (default: 1)")
      ->group(group);
}

void add_job_model_options(CLI::App& run, RunOptions& o) {
  const std::string group = "Job model";
  add_number(run, "--comm-fraction", o.sim.comm_fraction, 0.0, 1.0, "F",
             "share of a job's trace run time spent communicating when placed in as few\n"
             "NVLink domains as possible, for every class (default: each class's own)")
      ->group(group);
  add_number(run, "--comm-rounds", o.sim.comm_rounds, 1, 1000, "N",
             "compute/communicate rounds per job (default: 1)")
      ->group(group);
  run.add_option_function<std::string>(
         "--collective",
         [&o](const std::string& name) {
           if (!parse_collective(name, o.sim.collective))
             fail("--collective", "expected all-reduce or all-to-all");
         },
         "all-reduce (hierarchical, as NCCL on NVL72) or all-to-all, for every class that\n"
         "communicates (default: each class's own)")
      ->type_name("NAME")
      ->group(group);
  run.add_option_function<std::string>(
         "--request-shape",
         [&o](const std::string& text) {
           if (!parse_request_shaping(text, o.sim.request_shaping))
             fail("--request-shape", fmt::format("expected gpus, nodes or auto, got \"{}\"", text));
         },
         "what a job of G GPUs asks Slurm for: gpus (--gpus=G, on any trays), nodes\n"
         "(ceil(G/4) whole trays; a job rounded up runs on all their GPUs) or auto (whole\n"
         "trays when G is a multiple of a tray's 4 GPUs, else --gpus=G) (default: auto)")
      ->type_name("S")
      ->group(group);
  // The platform's cores per tray bound it further (run_command checks once the platform is loaded).
  add_number(run, "--cpus-per-gpu", o.sim.cpus_per_gpu, 0, 1 << 20, "K",
             "CPU cores a job asks per GPU (--cpus-per-gpu=K), at most a tray's cores over its\n"
             "GPUs (144/4 = 36); 0 = one core on each tray it uses (default: 0)")
      ->group(group);
  run.add_option_function<std::string>(
         "--gpu-sharing",
         [&o](const std::string& text) {
           if (!parse_gpu_sharing(text, o.sim.sharing.mode))
             fail("--gpu-sharing", fmt::format("expected none, shard or mps, got \"{}\"", text));
         },
         "how a job asking part of a GPU (SWF field 19) is placed: none (its whole GPU),\n"
         "shard (ceil(fraction x N) of a GPU's --shards-per-gpu shards, as --gres=shard:K)\n"
         "or mps (ceil(fraction x 100) of 100, as --gres=mps:K); shares are placed by\n"
         "per-gpu only (docs/sharing.md) (default: none)")
      ->type_name("MODE")
      ->group(group);
  add_number(run, "--shards-per-gpu", o.sim.sharing.shards_per_gpu, 1, kMaxShardsPerGpu, "N",
             "shards each GPU is split into under --gpu-sharing shard (gres.conf Count=N)\n"
             "(default: 4)")
      ->group(group);
  add_number(run, "--sharing-interference", o.sim.sharing.interference, 0.0, kMaxSharingInterference, "F",
             "how much each other job on a shared GPU slows a job's computation: k jobs on a\n"
             "GPU compute at 1/(1+F(k-1)) of their speed alone; 0 = no interference\n"
             "(default: 0.081, a measured 7.5% loss for two jobs under MPS; docs/sharing.md)")
      ->group(group);
  run.add_flag_callback(
         "--no-walltime-kill", [&o] { o.sim.walltime_kill = false; },
         "let jobs run past their time limit (default: killed there, as Slurm does)")
      ->group(group);
  add_number(run, "--default-time", o.default_time, 1.0, 1e12, "S",
             "time limit in s of a job whose requested time (SWF field 9) is -1, as Slurm's\n"
             "DefaultTime (default: no limit, as Slurm's MaxTime=INFINITE)")
      ->group(group);
}

void add_failure_options(CLI::App& run, RunOptions& o) {
  const std::string group = "Failures (docs/failures.md)";
  add_text(run, "--failures", o.failures, "SOURCE",
           "inject failures: \"llama3\" (the built-in model), \"llama3+midplane\" (plus NVL576's\n"
           "whole-rack midplane faults), a model FILE.json, or a replay FILE.csv\n"
           "(time,component,id,duration); seeded by --seed")
      ->group(group);
  add_number(run, "--failure-rate-scale", o.failure_rate_scale, 1e-9, 1e9, "X",
             "multiply every model failure rate by X (default: 1)")
      ->group(group);
  add_number(run, "--checkpoint-interval", o.sim.requeue.checkpoint_interval, 0.0, 1e12, "S",
             "s of a job's work between checkpoints; 0 = none (default: 1800)")
      ->group(group);
  add_number(run, "--restart-overhead", o.sim.requeue.restart_overhead, 0.0, 1e12, "S",
             "s a requeued job spends restarting before it works again (default: 300)")
      ->group(group);
  add_number(run, "--max-requeue", o.sim.requeue.max_requeue, 0, 1 << 20, "N",
             "requeues of a job killed by failures before it ends killed (default: 5, as\n"
             "Slurm's MaxBatchRequeue)")
      ->group(group);
}

void add_cost_options(CLI::App& run, RunOptions& o) {
  const std::string group =
      "Idle cost (US$ per GPU-hour; default: owner model of the system's rack, US$1.3558 on gb200-nvl72)";
  add_number(run, "--gpu-hour-usd", o.cost.rental_gpu_hour_usd, 0.0, 1e6, "X",
             "rental price per GPU-hour; replaces the owner model below")
      ->group(group);
  add_number(run, "--rack-price-usd", o.rack_cost.price_usd, 0.0, 1e12, "X",
             "purchase price of one rack (default: the system's; gb200-nvl72: 3e6)")
      ->group(group);
  add_number(run, "--amortization-years", o.cost.amortization_years, 0.01, 100.0, "Y",
             "years the price is spread over (default: 4)")
      ->group(group);
  add_number(run, "--rack-power-kw", o.rack_cost.power_kw, 0.0, 1e6, "P",
             "power drawn by one rack (default: the system's; gb200-nvl72: 120)")
      ->group(group);
  add_number(run, "--power-usd-per-kwh", o.cost.power_usd_per_kwh, 0.0, 1e3, "X",
             "electricity price (default: 0.10)")
      ->group(group);
}

void add_output_options(CLI::App& run, RunOptions& o) {
  const std::string group = "Outputs";
  run.add_option("--out", o.out_dir,
                 "output directory for jobs.csv, attempts.csv, summary.csv, timeseries.csv,\n"
                 "run.json (default: nvlsim-out)")
      ->type_name("DIR")
      ->group(group);
  run.add_flag("--write-swf", o.write_swf,
               "also write each policy's simulated schedule as SWF (schedule-POLICY.swf)")
      ->group(group);
  add_number(run, "--sample", o.sample_step, 0.0, 1e12, "SECONDS",
             "timeseries.csv: the state every SECONDS (default: 0, a row at every change)")
      ->group(group);
  run.add_flag("--plots", o.plots,
               "also render PNG figures into --out with analysis/plot.py (python3, matplotlib)")
      ->group(group);
  add_number(run, "--parallel", o.parallel, 1, 256, "N",
             "policies replayed at once, one process each (default: 2)")
      ->group(group);
  run.add_flag("-q,--quiet", o.quiet, "no progress on stderr")->group(group);
}

}  // namespace

CLI::App* add_run_command(CLI::App& app, RunOptions& o) {
  CLI::App* run = app.add_subcommand("run",
                                     "replay a trace under one or more policies (the default command:\n"
                                     "`nvlsim [options]` is `nvlsim run [options]`)");
  add_inputs(*run, o);
  add_job_model_options(*run, o);
  add_failure_options(*run, o);
  add_cost_options(*run, o);
  add_output_options(*run, o);
  add_engine_options(*run, o.engine_args);
  run->final_callback([run, &o] {
    // The command line beats the class file only where it was given.
    o.comm_fraction_given = run->count("--comm-fraction") > 0;
    o.collective_given = run->count("--collective") > 0;
    if (run->count("--shards-per-gpu") > 0 && o.sim.sharing.mode != GpuSharing::shard)
      fail("--shards-per-gpu", "only with --gpu-sharing shard (MPS counts 100 shares per GPU)");
    if (run->count("--sharing-interference") > 0 && o.sim.sharing.mode == GpuSharing::none)
      fail("--sharing-interference", "only with --gpu-sharing shard or mps (no job shares a GPU otherwise)");
    if (o.fit && run->count("--procs-per-gpu") > 0)
      fail("--fit", "chooses --procs-per-gpu itself; give one or the other");
  });
  return run;
}

}  // namespace nvlsim
