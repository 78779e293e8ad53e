// nvlsim-placement-bench: the cost of one placement decision, and of one scheduling pass, apart from the
// simulation around them. nvlsim-bench times whole replays, where a policy's choices also change how many
// flows SimGrid solves; this times only PlacementPolicy::place, or only the pass that calls it
// (easy_backfill), on seeded states that are the same from build to build, so two builds (or two
// policies) can be compared decision for decision and pass for pass.
//
//   nvlsim-placement-bench [--racks 8,64,256,1000] [--policy per-gpu,tree,...] [--states N] [--out FILE]
//   nvlsim-placement-bench --pass [--queue 10,100,1000,10000] [--repeats K] [--racks ...] [--policy ...]
//                          [--states N] [--out FILE]
// (default: every registered policy)
//
// Placement (the default): each tray is idle, wholly busy or partly busy (each GPU busy with probability
// 1/2), at three loads; requests: 1 to 512 GPUs; --states 300 by default. Prints ns per call.
// --pass: machines filled by the policy with the built-in job mix until full, and queues of the mix's
// next jobs (tests/bench/pass_cost.hpp); --states 10 machines by default, each pass timed --repeats 3
// times. Prints ns per pass and per queued job.
// --out writes the printed figures as JSON.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schedulers/cluster_state.hpp"
#include "schedulers/policy_registry.hpp"
#include "tests/bench/pass_cost.hpp"

namespace {

using namespace nvlsim;

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) out.push_back(part);
  return out;
}

std::vector<int> split_ints(const std::string& text) {
  std::vector<int> out;
  for (const auto& part : split(text)) out.push_back(std::stoi(part));
  return out;
}

// A machine at `load`: trays wholly busy with probability 0.7 x load, partly busy with 0.6 x load.
ClusterState random_state(const ClusterShape& shape, double load, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<int> busy;
  for (int tray = 0; tray < shape.trays(); ++tray) {
    const double r = u(rng);
    const int first = tray * shape.gpus_per_tray;
    for (int g = 0; g < shape.gpus_per_tray; ++g) {
      const bool whole = r < 0.7 * load;
      const bool partial = !whole && r < 1.3 * load && u(rng) < 0.5;
      if (whole || partial) busy.push_back(first + g);
    }
  }
  ClusterState state(shape);
  state.apply(Allocation{busy, {}});
  return state;
}

struct Row {
  int racks;
  std::string policy;
  long calls;
  long placed;
  double ns_per_call;
};

Row measure(int racks, const std::string& spec, int states) {
  PolicyContext context{ClusterShape{racks, 18, 4}};
  const auto policy = make_policy(spec, context);
  std::mt19937_64 rng(1);
  const int sizes[] = {1, 2, 3, 4, 6, 8, 12, 16, 32, 64, 128, 256, 512};
  Row row{racks, spec, 0, 0, 0};
  double seconds = 0;
  for (int s = 0; s < states; ++s) {
    const ClusterState state = random_state(context.shape, 0.3 + 0.3 * (s % 3), rng);
    const auto start = std::chrono::steady_clock::now();
    for (int gpus : sizes) {
      const auto placed = policy->place(state, JobRequest{gpus});
      row.placed += placed.has_value();
      ++row.calls;
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  row.ns_per_call = 1e9 * seconds / static_cast<double>(row.calls);
  return row;
}

nlohmann::json run_placement(const std::vector<int>& racks, const std::vector<std::string>& policies,
                             int states) {
  std::printf("%-6s %-12s %8s %8s %12s\n", "racks", "policy", "calls", "placed", "ns_per_call");
  nlohmann::json json = nlohmann::json::array();
  for (int r : racks) {
    for (const auto& p : policies) {
      const Row row = measure(r, p, states);
      std::printf("%-6d %-12s %8ld %8ld %12.0f\n", row.racks, row.policy.c_str(), row.calls, row.placed,
                  row.ns_per_call);
      std::fflush(stdout);
      json.push_back({{"racks", row.racks},
                      {"policy", row.policy},
                      {"calls", row.calls},
                      {"placed", row.placed},
                      {"ns_per_call", row.ns_per_call}});
    }
  }
  return json;
}

nlohmann::json run_passes(const std::vector<int>& racks, const std::vector<std::string>& policies,
                          const std::vector<int>& queues, int machines, int repeats) {
  std::printf("%-6s %-12s %6s %6s %5s %7s %12s %10s %12s\n", "racks", "policy", "queue", "passes", "free",
              "started", "ns_per_pass", "ns_per_job", "fresh_ns");
  nlohmann::json json = nlohmann::json::array();
  for (int r : racks) {
    for (const auto& p : policies) {
      for (const PassCost& row : measure_passes(r, p, queues, machines, repeats)) {
        const double per_job = row.carried_ns / row.queue;
        std::printf("%-6d %-12s %6d %6d %5.2f %7.1f %12.0f %10.1f %12.0f\n", row.racks, row.policy.c_str(),
                    row.queue, row.passes, row.free, row.started, row.carried_ns, per_job, row.fresh_ns);
        std::fflush(stdout);
        json.push_back({{"racks", row.racks},
                        {"policy", row.policy},
                        {"queue", row.queue},
                        {"passes", row.passes},
                        {"free", row.free},
                        {"started", row.started},
                        {"ns_per_pass", row.carried_ns},
                        {"ns_per_queued_job", per_job},
                        {"fresh_reservation_ns_per_pass", row.fresh_ns}});
      }
    }
  }
  return json;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> racks{8, 64, 256, 1000};
  std::vector<std::string> policies = policy_names();
  std::vector<int> queues{10, 100, 1000, 10000};
  bool pass = false;
  int states = 0;  // the mode's default
  int repeats = 3;
  std::string out;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--pass") {
        pass = true;
        continue;
      }
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      const std::string value = argv[++i];
      if (arg == "--racks") {
        racks = split_ints(value);
      } else if (arg == "--policy") {
        policies = split(value);
      } else if (arg == "--queue") {
        queues = split_ints(value);
      } else if (arg == "--states") {
        states = std::stoi(value);
        if (states < 1) throw std::invalid_argument("--states must be >= 1");
      } else if (arg == "--repeats") {
        repeats = std::stoi(value);
        if (repeats < 1) throw std::invalid_argument("--repeats must be >= 1");
      } else if (arg == "--out") {
        out = value;
      } else {
        throw std::invalid_argument("unknown option " + arg);
      }
    }
    for (int q : queues)
      if (q < 1) throw std::invalid_argument("--queue lengths must be >= 1");
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "nvlsim-placement-bench: %s\nusage: nvlsim-placement-bench [--pass] [--racks 8,64,256,1000] "
                 "[--policy per-gpu,tree,...] [--queue 10,100,1000,10000] [--states N] [--repeats K] "
                 "[--out FILE]\n",
                 e.what());
    return 2;
  }
  const nlohmann::json json = pass ? run_passes(racks, policies, queues, states > 0 ? states : 10, repeats)
                                   : run_placement(racks, policies, states > 0 ? states : 300);
  if (!out.empty()) {
    std::ofstream file(out);
    file << json.dump(1) << '\n';
    if (!file.flush()) {
      std::fprintf(stderr, "nvlsim-placement-bench: cannot write %s\n", out.c_str());
      return 1;
    }
  }
  return 0;
}
