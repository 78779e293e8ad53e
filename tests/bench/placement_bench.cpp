// nvlsim-placement-bench: the cost of one placement decision, apart from the simulation around it.
// nvlsim-bench times whole replays, where a policy's choices also change how many flows SimGrid solves;
// this times only PlacementPolicy::place on the same seeded cluster states for every policy, so two
// builds (or two policies) can be compared decision for decision.
//
//   nvlsim-placement-bench [--racks 8,64,256] [--policy per-gpu,tree,...] [--states N] [--out FILE]
// (default: every registered policy)
//
// States: each tray is idle, wholly busy or partly busy (each GPU busy with probability 1/2), at three
// loads; requests: 1 to 512 GPUs. Prints ns per call; --out writes the same figures as JSON.

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

namespace {

using namespace nvlsim;

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) out.push_back(part);
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

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> racks{8, 64, 256};
  std::vector<std::string> policies = policy_names();
  int states = 300;
  std::string out;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      const std::string value = argv[++i];
      if (arg == "--racks") {
        racks.clear();
        for (const auto& r : split(value)) racks.push_back(std::stoi(r));
      } else if (arg == "--policy") {
        policies = split(value);
      } else if (arg == "--states") {
        states = std::stoi(value);
      } else if (arg == "--out") {
        out = value;
      } else {
        throw std::invalid_argument("unknown option " + arg);
      }
    }
    if (states < 1) throw std::invalid_argument("--states must be >= 1");
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "nvlsim-placement-bench: %s\nusage: nvlsim-placement-bench [--racks 8,64,256] "
                 "[--policy per-gpu,tree,...] [--states N] [--out FILE]\n",
                 e.what());
    return 2;
  }
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
