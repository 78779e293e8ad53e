#include "sim/cli_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "models/input_error.hpp"
#include "schedulers/job_request.hpp"
#include "schedulers/policy_registry.hpp"
#include "sim/cli_args.hpp"

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

PlatformOptions parse_platform(Args& a) {
  PlatformOptions p;
  std::set<std::string> seen;
  while (!a.done()) {
    const std::string& flag = a.next();
    if (!seen.insert(flag).second) fail(flag, "given twice");
    if (flag == "--racks")
      p.racks = a.number<int>(flag, 1, 4096);
    else if (flag == "--nvlink-links")
      p.fabric.nvlink_links_per_gpu = a.number<int>(flag, 1, 1024);
    else if (flag == "--nvlink-link-bw")
      p.fabric.nvlink_link_bw = a.number<double>(flag, 1.0, 1e15);
    else if (flag == "--nvlink-latency")
      p.fabric.nvlink_latency = a.number<double>(flag, 0.0, 1.0);
    else if (flag == "--nic-bw")
      p.fabric.nic_bw = a.number<double>(flag, 1.0, 1e15);
    else if (flag == "--ib-latency")
      p.fabric.ib_latency = a.number<double>(flag, 0.0, 1.0);
    else if (flag == "--ib-oversubscription")
      p.fabric.ib_oversubscription = a.number<double>(flag, 1.0, 1e6);
    else if (flag == "--ib-switch-radix")
      p.fabric.ib_switch_radix = a.number<int>(flag, 4, 4096);
    else if (flag == "--nvlink-sharp")
      p.fabric.nvlink_sharp = true;
    else if (flag == "--node-names")
      p.node_names = a.value(flag);
    else if (flag == "-o" || flag == "--output")
      p.output = a.value(flag);
    else if (flag == "--write-topology")
      p.topology_output = a.value(flag);
    else
      fail(flag, "unknown option of `nvlsim platform` (see nvlsim --help)");
  }
  if (p.output.empty() && p.topology_output.empty())
    fail("platform", "-o FILE or --write-topology FILE is required");
  return p;
}

}  // namespace

CliOptions parse_cli(std::span<const std::string> args) {
  CliOptions o;
  Args a(args);
  if (!a.done() && args[0] == "platform") {
    a.next();
    o.command = Command::platform;
    o.platform = parse_platform(a);
    return o;
  }
  RunOptions& r = o.run;
  std::set<std::string> seen;
  while (!a.done()) {
    const std::string& flag = a.next();
    // A second value would silently replace the first; only --policy adds up.
    if (flag != "--policy" && !seen.insert(flag).second) fail(flag, "given twice");
    if (flag == "--help" || flag == "-h") {
      o.command = Command::help;
      return o;
    }
    if (flag == "--version") {
      o.command = Command::version;
      return o;
    }
    if (flag == "--platform")
      r.platform = a.value(flag);
    else if (flag == "--trace")
      r.trace = a.value(flag);
    else if (flag == "--policy") {
      for (auto& spec : split_policies(a.value(flag))) r.policies.push_back(std::move(spec));
    } else if (flag == "--policy-file")
      r.policy_file = a.value(flag);
    else if (flag == "--topology")
      r.topology = a.value(flag);
    else if (flag == "--out")
      r.out_dir = a.value(flag);
    else if (flag == "--seed")
      r.seed = a.number<std::uint64_t>(flag, 0, UINT64_MAX);
    else if (flag == "--quiet" || flag == "-q")
      r.quiet = true;
    else if (flag == "--skip-bad-lines")
      r.skip_bad_lines = true;
    else if (flag == "--parallel")
      r.parallel = a.number<int>(flag, 1, 256);
    else if (flag == "--comm-fraction") {
      r.sim.comm_fraction = a.number<double>(flag, 0.0, 1.0);
      r.comm_fraction_given = true;
    } else if (flag == "--comm-rounds")
      r.sim.comm_rounds = a.number<int>(flag, 1, 1000);
    else if (flag == "--collective") {
      if (!parse_collective(a.value(flag), r.sim.collective)) fail(flag, "expected all-reduce or all-to-all");
      r.collective_given = true;
    } else if (flag == "--classes")
      r.classes_file = a.value(flag);
    else if (flag == "--procs-per-gpu")
      r.procs_per_gpu = a.number<int>(flag, 1, 1 << 20);
    else if (flag == "--fit")
      r.fit = true;
    else if (flag == "--write-swf")
      r.write_swf = true;
    else if (flag == "--failures")
      r.failures = a.value(flag);
    else if (flag == "--failure-rate-scale")
      r.failure_rate_scale = a.number<double>(flag, 1e-9, 1e9);
    else if (flag == "--checkpoint-interval")
      r.sim.requeue.checkpoint_interval = a.number<double>(flag, 0.0, 1e12);
    else if (flag == "--restart-overhead")
      r.sim.requeue.restart_overhead = a.number<double>(flag, 0.0, 1e12);
    else if (flag == "--max-requeue")
      r.sim.requeue.max_requeue = a.number<int>(flag, 0, 1 << 20);
    else if (flag == "--no-walltime-kill")
      r.sim.walltime_kill = false;
    else if (flag == "--default-time")
      r.default_time = a.number<double>(flag, 1.0, 1e12);
    else if (flag == "--request-shape") {
      const std::string& text = a.value(flag);
      if (!parse_request_shaping(text, r.sim.request_shaping))
        fail(flag, fmt::format("expected gpus, nodes or auto, got \"{}\"", text));
    } else if (flag == "--cpus-per-gpu")
      // The platform's cores per tray bound it further (run_command checks once the platform is loaded).
      r.sim.cpus_per_gpu = a.number<int>(flag, 0, 1 << 20);
    else if (flag == "--sample")
      r.sample_step = a.number<double>(flag, 0.0, 1e12);
    else if (flag == "--plots")
      r.plots = true;
    else if (flag == "--gpu-hour-usd")
      r.cost.rental_gpu_hour_usd = a.number<double>(flag, 0.0, 1e6);
    else if (flag == "--rack-price-usd")
      r.cost.rack_price_usd = a.number<double>(flag, 0.0, 1e12);
    else if (flag == "--amortization-years")
      r.cost.amortization_years = a.number<double>(flag, 0.01, 100.0);
    else if (flag == "--rack-power-kw")
      r.cost.rack_power_kw = a.number<double>(flag, 0.0, 1e6);
    else if (flag == "--power-usd-per-kwh")
      r.cost.power_usd_per_kwh = a.number<double>(flag, 0.0, 1e3);
    else
      fail(flag, "unknown option (see nvlsim --help)");
  }
  if (r.fit && r.procs_per_gpu) fail("--fit", "chooses --procs-per-gpu itself; give one or the other");
  return o;
}

std::string usage() {
  return fmt::format(R"(nvlsim {} - GB200 NVL72 cluster scheduling simulator (SimGrid)

Usage:
  nvlsim [options]                      replay a trace under one or more policies
  nvlsim platform --racks N -o FILE     write an NVL72 platform file with N racks
  nvlsim platform ... --write-topology FILE
                                        also (or only) write the Slurm topology.conf of its leaf switches
  nvlsim workload mix|convert ...       generate or convert traces (see below)

Platform options (defaults: GB200 NVL72 and ConnectX-7, see docs/model.md):
  --nvlink-links N           NVLinks per GPU, one per NVSwitch chip (18)
  --nvlink-link-bw B         bytes/s each way per NVLink (50e9)
  --nvlink-latency S         s per NVLink port link (0)
  --nic-bw B                 bytes/s each way per InfiniBand NIC (50e9)
  --ib-latency S             s per InfiniBand link (0)
  --ib-oversubscription R    leaf uplinks carry the leaf's NICs x NIC bandwidth / R (1)
  --ib-switch-radix N        ports per InfiniBand switch; a leaf serves N/2 trays per rail (64)
  --nvlink-sharp             NVSwitches reduce in place (NVLink SHARP) for all-reduce
  --node-names HOSTLIST      Slurm node name of each tray in order, e.g. "gb[01-08]n[01-18]", for
                             --topology files (default: trays map to nodes by order of appearance;
                             --write-topology then names them tray-0, tray-1, ...)

Idle cost (US$ per GPU-hour; default owner model: US$1.3558 with 72 GPUs per rack):
  --gpu-hour-usd X         rental price per GPU-hour; replaces the owner model below
  --rack-price-usd X       purchase price of one NVL72 rack (default: 3e6)
  --amortization-years Y   years the price is spread over (default: 4)
  --rack-power-kw P        power drawn by one rack (default: 120)
  --power-usd-per-kwh X    electricity price (default: 0.10)

Options (`--flag value` or `--flag=value`; a flag given twice is an error, except --policy):
  --platform FILE      SimGrid platform written by `nvlsim platform` (default: built-in nvl72x8); a bare
                       nvl72xN or nvl72xN.xml that is no file here is the built-in N-rack platform
  --trace FILE         SWF trace, plain or .gz (default: the seeded AI job mix of `nvlsim workload mix`,
                       400 jobs; on 64 racks the week of workloads/mix.swf); a bare mix.swf that is no
                       file here is that shipped week
  --policy LIST        comma-separated policy specs NAME[:key=value...], or "all" for every policy
                       (default: per-gpu,block,sub-block); repeatable, the lists add up;
                       known: {}; parameters in docs/policies.md
  --policy-file FILE   JSON list of policy specs, rule tables included (see docs/policies.md)
  --topology FILE      Slurm topology.conf or topology.yaml: blocks for block/sub-block, switches for
                       tree (default: one block per NVLink domain, leaf switches of the fabric)
  --out DIR            output directory for jobs.csv, summary.csv, timeseries.csv, run.json
                       (default: nvlsim-out)
  --seed N             seed of every random process (default: 1)
  --comm-fraction F    share of a job's trace run time spent communicating when placed in as few
                       NVLink domains as possible, for every class (default: each class's own)
  --comm-rounds N      compute/communicate rounds per job (default: 1)
  --collective NAME    all-reduce (hierarchical, as NCCL on NVL72) or all-to-all, for every class that
                       communicates (default: each class's own)
  --classes FILE       JSON job classes and the SWF fields that map jobs to them (docs/workloads.md;
                       default: pretrain, finetune, inference, hpc; unmapped jobs are hpc)
  --procs-per-gpu K    trace processors per GPU: a job needs ceil(processors / K) GPUs (default: 1)
  --fit                choose K so the trace's MaxProcs and largest job fit the platform
  --write-swf          also write each policy's simulated schedule as SWF (schedule-POLICY.swf)
  --no-walltime-kill   let jobs run past their time limit (default: killed there, as Slurm does)
  --default-time S     time limit in s of a job whose requested time (SWF field 9) is -1, as Slurm's
                       DefaultTime (default: no limit, as Slurm's MaxTime=INFINITE)
  --request-shape S    what a job of G GPUs asks Slurm for: gpus (--gpus=G, on any trays), nodes
                       (ceil(G/4) whole trays; a job rounded up runs on all their GPUs) or auto (whole
                       trays when G is a multiple of a tray's 4 GPUs, else --gpus=G) (default: auto)
  --cpus-per-gpu K     CPU cores a job asks per GPU (--cpus-per-gpu=K), at most a tray's cores over its
                       GPUs (144/4 = 36); 0 = one core on each tray it uses (default: 0)
  --failures SOURCE    inject failures (docs/failures.md): "llama3" (the built-in model), a model
                       FILE.json, or a replay FILE.csv (time,component,id,duration); seeded by --seed
  --failure-rate-scale X  multiply every model failure rate by X (default: 1)
  --checkpoint-interval S  s of a job's work between checkpoints; 0 = none (default: 1800)
  --restart-overhead S     s a requeued job spends restarting before it works again (default: 300)
  --max-requeue N      requeues of a job killed by failures before it ends killed (default: 5, as
                       Slurm's MaxBatchRequeue)
  --sample SECONDS     timeseries.csv: the state every SECONDS (default: 0, a row at every change)
  --plots              also render PNG figures into --out with analysis/plot.py (python3, matplotlib)
  --skip-bad-lines     skip malformed trace lines, counting and reporting each (default: stop)
  --parallel N         policies replayed at once, one process each (default: 2)
  --quiet, -q          no progress on stderr
  --help, -h           this text
  --version            print the version
)",
                     NVLSIM_VERSION, fmt::join(policy_names(), ", "));
}

}  // namespace nvlsim
