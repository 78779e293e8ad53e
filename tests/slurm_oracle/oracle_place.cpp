// nvlsim-oracle-place: answers placement questions for tests/slurm_oracle/run. Given a machine of NVL72
// racks whose trays are Slurm nodes tray-0, tray-1, ..., it reads one JSON question per line on stdin
// (the GPUs and CPUs in use on each tray, and a request) and writes one JSON line with the allocation the
// nvlsim policy chooses on that state, so the harness can hold it against the real Slurm's.
//
//   nvlsim-oracle-place --policy per-gpu|tree --racks R [--cpus-per-tray C] [--topology FILE]
//                       [--shards-per-gpu N]
//   nvlsim-oracle-place --racks R --write-topology FILE   (the topology.conf of nvlsim's own leaves)
//   in:  {"used": [[tray, [gpu_index, ...], cpus_used(, [[gpu_index, shards_used], ...])], ...],
//         "request": {"gpus": G, "shape": "gpus"|"nodes", "cpus_per_gpu": K(, "shards": S, "gres": "mps")}}
//   out: {"alloc": [[tray, [gpu_index, ...]], ...](, "shards": S)}  or  {"alloc": null}  or  {"error": "..."}
// With gres/shard (docs/sharing.md), a tray's optional fourth entry gives the shards in use on its GPUs, a
// request with "shards": S > 0 asks `-N G --gres=shard:S` (with "gres": "mps", `--gres=mps:S`, shares
// counted out of --shards-per-gpu 100), and the answer's "shards" says how many shares of each GPU listed
// the job takes (absent: the GPUs whole).
// A question may instead give the running jobs and ask for the backfill reservation of the request:
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

#include "models/ib_fabric.hpp"
#include "schedulers/policy_registry.hpp"
#include "schedulers/reservation_replay.hpp"
#include "schedulers/slurm_topology.hpp"
#include "schedulers/switch_tree.hpp"
#include "schedulers/topology_conf_writer.hpp"

namespace {

using nlohmann::json;
using namespace nvlsim;

struct Options {
  std::string policy = "per-gpu";
  int racks = 2;
  int cpus_per_tray = 144;
  std::string topology;
  std::string write_topology;
  int shards_per_gpu = kDefaultShardsPerGpu;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
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
    else if (arg == "--shards-per-gpu")
      o.shards_per_gpu = std::stoi(value);
    else
      throw std::invalid_argument("unknown option " + arg);
  }
  if (o.racks < 1 || o.cpus_per_tray < 1 || o.shards_per_gpu < 1)
    throw std::invalid_argument("--racks, --cpus-per-tray and --shards-per-gpu must be >= 1");
  return o;
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

json answer(const std::optional<Allocation>& placed, const ClusterShape& shape) {
  if (!placed) return json{{"alloc", nullptr}};
  std::map<int, std::vector<int>> by_tray;
  for (int gpu : placed->gpus) by_tray[shape.tray_of_gpu(gpu)].push_back(gpu % shape.gpus_per_tray);
  json alloc = json::array();
  for (const auto& [tray, indices] : by_tray) alloc.push_back(json::array({tray, indices}));
  json out{{"alloc", alloc}};
  if (placed->shards > 0) out["shards"] = placed->shards;
  return out;
}

// The reservation nvlsim's EASY backfill would give the request on this state (schedulers/
// reservation_replay.hpp): when, and on what.
json reservation(const json& question, const PlacementPolicy& policy, const ClusterShape& shape) {
  ClusterState state(shape);
  state.index_groups(policy.tray_groups());  // as the run's state keeps them
  std::vector<Allocation> allocations;
  for (const json& job : question.at("running")) allocations.push_back(allocation_of(job.at("used"), shape));
  ReservationReplay replay;
  for (std::size_t j = 0; j < allocations.size(); ++j) {
    state.apply(allocations[j]);
    replay.started(state, j, question.at("running")[j].at("end").get<double>(), allocations[j]);
  }
  const auto reserved =
      replay.reserve(question.at("now").get<double>(), state, request_of(question.at("request")), policy);
  if (!reserved) return json{{"start", nullptr}, {"alloc", nullptr}};
  json out = answer(*reserved->allocation, shape);
  out["start"] = reserved->start;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parse(argc, argv);
    PolicyContext context;
    context.shape = ClusterShape{options.racks, 18, 4, options.cpus_per_tray};
    // The leaves of the fabric nvlsim platform writes by default, as the run gives them to `tree`.
    context.trays_per_leaf = IbFabric(context.shape, FabricParams{}).trays_per_leaf();
    for (int tray = 0; tray < context.shape.trays(); ++tray)
      context.node_names.push_back("tray-" + std::to_string(tray));
    if (!options.write_topology.empty()) {
      std::ofstream out(options.write_topology);
      out << topology_conf_text(make_switch_tree(context), context.node_names);
      if (!out.flush()) throw std::runtime_error("cannot write " + options.write_topology);
      return 0;
    }
    if (!options.topology.empty())
      context.topology = read_slurm_topology(options.topology, context.node_names);
    const auto policy = make_policy(options.policy, context);
    std::string line;
    while (std::getline(std::cin, line)) {
      json out;
      try {
        const json question = json::parse(line);
        if (question.value("reserve", false)) {
          out = reservation(question, *policy, context.shape);
        } else {
          ClusterState state(context.shape, options.shards_per_gpu);
          state.index_groups(policy->tray_groups());
          apply_used(state, question.at("used"));
          out = answer(policy->place(state, request_of(question.at("request"))), context.shape);
        }
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
