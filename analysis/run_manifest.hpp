#pragma once
// run.json: what was run, on what, and how long it took.

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/cost_model.hpp"

namespace nvlsim {

struct RunManifest {
  std::string version;
  std::vector<std::string> command_line;
  std::uint64_t seed = 0;
  struct Platform {
    std::string source;  // file, or "built-in nvl72x8"
    std::string system;  // models/system_catalog.hpp
    int racks = 0, domains = 0, trays = 0, gpus = 0, gpus_per_tray = 0;
    double nvlink_gpu_bw = 0, nic_bw = 0, ib_oversubscription = 0;
    bool partial_operation = false;  // NVLink 6's, from the platform; placement does not depend on it
  } platform;
  struct Trace {
    std::string source;
    std::size_t lines_read = 0, jobs = 0, skipped = 0;
    std::vector<std::string> first_skipped;  // messages of the first few skipped lines
    int procs_per_gpu = 1;                   // trace processors per GPU (--procs-per-gpu or --fit)
    bool fit = false;                        // procs_per_gpu was chosen by --fit
  } trace;
  struct JobClassEntry {
    std::string name;
    double comm_fraction = 0;
    std::string collective;  // "none" for classes that do not communicate
    int segment_nodes = 0;
  };
  std::vector<JobClassEntry> classes;  // the run's class table, in index order
  std::string classes_source;          // --classes file, or "built-in"
  std::string default_class;           // class of jobs no rule maps
  struct Policy {
    std::string name;
    double wall_seconds = 0;
  };
  std::vector<Policy> policies;
  std::string topology;  // --topology file, empty when blocks and switches come from the platform
  double platform_load_seconds = 0;
  double comm_fraction = 0;
  int comm_rounds = 0;
  std::string collective;
  bool walltime_kill = true;
  double default_time = std::numeric_limits<double>::infinity();  // --default-time; infinity = no limit
  std::string request_shape;                                      // --request-shape: gpus, nodes, auto
  int cpus_per_gpu = 0;                                           // --cpus-per-gpu
  std::string slurm_version;                                      // --slurm-version: 22.05, 24.11
  std::string gpu_sharing = "none";                               // --gpu-sharing: none, shard, mps
  int shards_per_gpu = 0;                                         // --shards-per-gpu under shard, else 0
  double sharing_interference = -1;  // --sharing-interference under shard or mps, else -1
  CostModel cost;
  int gpus_per_rack = 0;    // the owner model's divisor
  double gpu_hour_usd = 0;  // the price every _usd column uses
  double sample_step = 0;   // --sample: s between timeseries.csv rows, 0 = every change
  struct Failures {
    std::string source;  // --failures; empty = none
    std::string mode;    // none, model, replay
    std::size_t replayed_events = 0;
    double rate_scale = 1;
    struct Component {
      std::string name;
      double mtbf_hours = 0, mttr_hours = 0;
      std::string life, repair;
    };
    std::vector<Component> components;  // model mode: the components that fail
    double checkpoint_interval = 0, restart_overhead = 0;
    int max_requeue = 0;
  } failures;
};

void write_run_json(std::ostream& out, const RunManifest& manifest);

}  // namespace nvlsim
