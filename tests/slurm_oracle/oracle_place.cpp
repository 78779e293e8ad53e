// nvlsim-oracle-place: answers placement questions for tests/slurm_oracle/run. Given a machine of NVL72
// racks whose trays are Slurm nodes tray-0, tray-1, ..., it reads one JSON line per question on stdin and
// writes one JSON line with nvlsim's answer, so the harness can hold it against the real Slurm's.
//
//   nvlsim-oracle-place --policy SPEC --racks R [--cpus-per-tray C] [--topology FILE]
//                       [--sharing shard|mps --shards-per-gpu N] [--slurm-version 22.05|24.11]
//                       [--closed-loop]
//   nvlsim-oracle-place --racks R --write-topology FILE        (the leaves of nvlsim's own fabric)
//   nvlsim-oracle-place --racks R --write-block-topology FILE  (the blocks of its NVLink domains)
//
// Per decision (the default), each question gives the state Slurm holds:
//   in:  {"used": [[tray, [gpu_index, ...], cpus_used(, [[gpu_index, shards_used], ...])], ...],
//         "down": [tray, ...], "request": {"gpus": G, "shape": "gpus"|"nodes", "cpus_per_gpu": K
//         (, "shards": S, "gres": "mps")}}
// With --closed-loop the placer keeps its own state, as the replay does (sim/core/running_set.hpp): it
// starts each job it places and is told the rest:
//   in:  {"submit": KEY, "request": {...}}     a submission; KEY names the job in later notices
//        {"end": KEY}                          the job ended (it must be running)
//        {"down": [tray, ...]} / {"up": [...]}  trays left service (their jobs ended first) or came back
//   out to a notice: {"ok": true}
// The answer to a submission, in both modes:
//   out: {"alloc": [[tray, [gpu_index, ...]], ...], "cpus": [[tray, cores], ...](, "shards": S),
//         "salloc": [option, ...]}  or  {"alloc": null, "never": true|false, "salloc": [...]}
// salloc: the options that ask Slurm for what the policy stands for (PlacementPolicy::slurm_options);
// never: the policy would not place the request on an empty machine either (a REJECTED job in a run).
// A share request's answer's "shards" says how many shares of each GPU listed the job takes (absent: the
// GPUs whole). Any question may instead fail: {"error": "..."}.
// A per-decision question may also give the running jobs and ask for the backfill reservation:
//   in:  {"now": T, "running": [{"end": T_end, "used": [[tray, [gpu_index, ...], cpus], ...]}, ...],
//         "request": {...}, "reserve": true}
//   out: {"start": T_start, "alloc": [...]}  or  {"start": null, "alloc": null} when it never fits

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/fabric_params.hpp"
#include "models/ib_fabric.hpp"
#include "schedulers/block_layout.hpp"
#include "schedulers/policy_registry.hpp"
#include "schedulers/reservation_replay.hpp"
#include "schedulers/slurm_topology.hpp"
#include "schedulers/slurm_version.hpp"
#include "schedulers/switch_tree.hpp"
#include "schedulers/topology_conf_writer.hpp"
#include "sim/core/running_set.hpp"

namespace {

using nlohmann::json;
using namespace nvlsim;

struct Options {
  std::string policy = "per-gpu";
  int racks = 2;
  int cpus_per_tray = 144;
  std::string topology;
  std::string write_topology;
  std::string write_block_topology;
  int shards_per_gpu = kDefaultShardsPerGpu;
  GpuSharing sharing = GpuSharing::none;
  SlurmVersion slurm_version = kDefaultSlurmVersion;
  bool closed_loop = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--closed-loop") {
      o.closed_loop = true;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--policy")
      o.policy = value;
    else if (arg == "--racks")
      o.racks = std::stoi(value);
    else if (arg == "--cpus-per-tray")
      o.cpus_per_tray = std::stoi(value);
    else if (arg == "--topology")
      o.topology = value;
    else if (arg == "--write-topology")
      o.write_topology = value;
    else if (arg == "--write-block-topology")
      o.write_block_topology = value;
    else if (arg == "--shards-per-gpu")
      o.shards_per_gpu = std::stoi(value);
    else if (arg == "--sharing" && (value == "shard" || value == "mps"))
      o.sharing = value == "mps" ? GpuSharing::mps : GpuSharing::shard;
    else if (arg == "--slurm-version")
      o.slurm_version = parse_slurm_version(value, "--slurm-version");
    else
      throw std::invalid_argument("unknown option " + arg);
  }
  if (o.racks < 1 || o.cpus_per_tray < 1 || o.shards_per_gpu < 1)
    throw std::invalid_argument("--racks, --cpus-per-tray and --shards-per-gpu must be >= 1");
  return o;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

// What Slurm reports of one job, or of all jobs on each tray: GPUs and CPUs per tray.
Allocation allocation_of(const json& used, const ClusterShape& shape) {
  Allocation a;
  for (const json& entry : used) {
    const int tray = entry.at(0).get<int>();
    if (tray < 0 || tray >= shape.trays()) throw std::invalid_argument("tray out of range");
    for (int index : entry.at(1)) a.gpus.push_back(shape.first_gpu_of_tray(tray) + index);
    a.cpus.push_back({tray, entry.at(2).get<int>()});
  }
  std::sort(a.gpus.begin(), a.gpus.end());
  std::sort(a.cpus.begin(), a.cpus.end(),
            [](const TrayCpus& x, const TrayCpus& y) { return x.tray < y.tray; });
  return a;
}

std::vector<int> gpus_of_trays(const json& trays, const ClusterShape& shape) {
  std::vector<int> gpus;
  for (const json& t : trays) {
    const int tray = t.get<int>();
    if (tray < 0 || tray >= shape.trays()) throw std::invalid_argument("tray out of range");
    for (int i = 0; i < shape.gpus_per_tray; ++i) gpus.push_back(shape.first_gpu_of_tray(tray) + i);
  }
  return gpus;
}

// Applies what all jobs hold: the whole GPUs and CPUs, then the shards in use on each GPU, one allocation
// per GPU (the state counts shards per GPU, whichever jobs hold them).
void apply_used(ClusterState& state, const json& used) {
  const ClusterShape& shape = state.shape();
  state.apply(allocation_of(used, shape));
  for (const json& entry : used) {
    if (entry.size() < 4) continue;
    const int first = shape.first_gpu_of_tray(entry.at(0).get<int>());
    for (const json& shared : entry.at(3)) {
      Allocation shards;
      shards.gpus = {first + shared.at(0).get<int>()};
      shards.shards = shared.at(1).get<int>();
      state.apply(shards);
    }
  }
}

JobRequest request_of(const json& r) {
  JobRequest request;
  request.gpus = r.at("gpus").get<int>();
  const std::string shape = r.at("shape").get<std::string>();
  if (shape == "nodes")
    request.shape = RequestShape::nodes;
  else if (shape != "gpus")
    throw std::invalid_argument("unknown shape " + shape);
  request.cpus_per_gpu = r.value("cpus_per_gpu", 0);
  request.shards = r.value("shards", 0);
  const std::string gres = r.value("gres", "shard");
  if (gres == "mps")
    request.gres = SharedGres::mps;
  else if (gres != "shard")
    throw std::invalid_argument("unknown gres " + gres);
  return request;
}

json alloc_json(const Allocation& placed, const ClusterShape& shape) {
  std::map<int, std::vector<int>> by_tray;
  for (int gpu : placed.gpus) by_tray[shape.tray_of_gpu(gpu)].push_back(gpu % shape.gpus_per_tray);
  json alloc = json::array();
  for (const auto& [tray, indices] : by_tray) alloc.push_back(json::array({tray, indices}));
  return alloc;
}

class Placer {
 public:
  Placer(const PlacementPolicy& policy, const ClusterShape& shape, const SharingConfig& sharing,
         bool closed_loop)
      : policy_(policy),
        shape_(shape),
        shards_per_gpu_(sharing.shares_per_gpu()),
        empty_(shape, shards_per_gpu_) {
    empty_.index_groups(policy.tray_groups());
    if (closed_loop) {
      sampler_ = std::make_unique<StateSampler>(shape, FabricParams{}, std::span<const JobRequest>{},
                                                std::span<const std::size_t>{});
      running_ = std::make_unique<RunningSet>(shape, sharing, kMaxJobs, *sampler_, policy.tray_groups());
    }
  }

  json answer(const json& question) {
    if (question.value("reserve", false)) return reservation(question);
    if (!running_) {
      ClusterState state(shape_, shards_per_gpu_);
      state.index_groups(policy_.tray_groups());
      apply_used(state, question.at("used"));
      for (int gpu : gpus_of_trays(question.value("down", json::array()), shape_)) state.set_down(gpu, true);
      return decide(state, request_of(question.at("request")), nullptr);
    }
    if (question.contains("submit")) {
      const std::size_t key = job_key(question.at("submit"));
      return decide(running_->state(), request_of(question.at("request")), &key);
    }
    if (question.contains("end")) {
      const std::size_t key = job_key(question.at("end"));
      if (!running_->contains(key))
        throw std::invalid_argument("job " + std::to_string(key) + " is not running");
      running_->remove(key);
    } else if (question.contains("down") || question.contains("up")) {
      const bool down = question.contains("down");
      const std::vector<int> gpus = gpus_of_trays(question.at(down ? "down" : "up"), shape_);
      if (!running_->owners(gpus).empty()) throw std::invalid_argument("a job runs on a tray going down");
      running_->set_down(gpus, down);
    } else {
      throw std::invalid_argument("a closed-loop question is submit, end, down or up");
    }
    return json{{"ok", true}};
  }

 private:
  // Job keys index the running set, which is sized once.
  static constexpr std::size_t kMaxJobs = std::size_t{1} << 20;
  static std::size_t job_key(const json& key) {
    const std::size_t k = key.get<std::size_t>();
    if (k >= kMaxJobs) throw std::invalid_argument("job keys go up to " + std::to_string(kMaxJobs - 1));
    return k;
  }

  // The policy's answer on `state`; in closed loop, a placed job starts under `key`.
  json decide(const ClusterState& state, const JobRequest& request, const std::size_t* key) {
    json out{{"salloc", policy_.slurm_options(request)}};
    const std::optional<Allocation> placed = policy_.place(state, request);
    if (!placed) {
      out["alloc"] = nullptr;
      out["never"] = !policy_.place(empty_, request).has_value();
      return out;
    }
    out["alloc"] = alloc_json(*placed, shape_);
    json cpus = json::array();
    for (const TrayCpus& c : placed->cpus) cpus.push_back(json::array({c.tray, c.cpus}));
    out["cpus"] = cpus;
    if (placed->shards > 0) out["shards"] = placed->shards;
    if (key) {
      if (running_->contains(*key))
        throw std::invalid_argument("job " + std::to_string(*key) + " runs already");
      running_->add(*key, static_cast<double>(*key), *placed);
    }
    return out;
  }

  // The reservation nvlsim's EASY backfill would give the request on this state (schedulers/
  // reservation_replay.hpp): when, and on what.
  json reservation(const json& question) const {
    ClusterState state(shape_, shards_per_gpu_);
    state.index_groups(policy_.tray_groups());  // as the run's state keeps them
    std::vector<Allocation> allocations;
    for (const json& job : question.at("running"))
      allocations.push_back(allocation_of(job.at("used"), shape_));
    ReservationReplay replay;
    for (std::size_t j = 0; j < allocations.size(); ++j) {
      state.apply(allocations[j]);
      replay.started(state, j, question.at("running")[j].at("end").get<double>(), allocations[j]);
    }
    const auto reserved =
        replay.reserve(question.at("now").get<double>(), state, request_of(question.at("request")), policy_);
    if (!reserved) return json{{"start", nullptr}, {"alloc", nullptr}};
    return json{{"start", reserved->start}, {"alloc", alloc_json(*reserved->allocation, shape_)}};
  }

  const PlacementPolicy& policy_;
  ClusterShape shape_;
  int shards_per_gpu_;
  ClusterState empty_;
  std::unique_ptr<StateSampler> sampler_;
  std::unique_ptr<RunningSet> running_;
};

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parse(argc, argv);
    PolicyContext context;
    context.shape = ClusterShape{options.racks, 18, 4, options.cpus_per_tray};
    context.slurm_version = options.slurm_version;
    // The leaves of the fabric nvlsim platform writes by default, as the run gives them to `tree`.
    context.trays_per_leaf = IbFabric(context.shape, FabricParams{}).trays_per_leaf();
    for (int tray = 0; tray < context.shape.trays(); ++tray)
      context.node_names.push_back("tray-" + std::to_string(tray));
    if (!options.write_topology.empty() || !options.write_block_topology.empty()) {
      if (!options.write_topology.empty())
        write_text(options.write_topology, topology_conf_text(make_switch_tree(context), context.node_names));
      if (!options.write_block_topology.empty())
        write_text(options.write_block_topology,
                   block_topology_conf_text(make_block_layout(context), context.node_names));
      return 0;
    }
    if (!options.topology.empty())
      context.topology = read_slurm_topology(options.topology, context.node_names);
    const auto policy = make_policy(options.policy, context);
    SharingConfig sharing;
    sharing.mode = options.sharing;
    sharing.shards_per_gpu = options.shards_per_gpu;
    Placer placer(*policy, context.shape, sharing, options.closed_loop);
    std::string line;
    while (std::getline(std::cin, line)) {
      json out;
      try {
        out = placer.answer(json::parse(line));
      } catch (const std::exception& e) {
        out = json{{"error", e.what()}};
      }
      std::cout << out.dump() << std::endl;
    }
  } catch (const std::exception& e) {
    std::cerr << "nvlsim-oracle-place: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
