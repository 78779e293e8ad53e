#include "sim/cli/probe_command.hpp"

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <optional>
#include <sstream>

#include "models/input_error.hpp"
#include "models/read_number.hpp"
#include "sim/cli/engine_options.hpp"
#include "sim/cli/number_option.hpp"
#include "sim/engine_setup.hpp"
#include "sim/flow_endpoints.hpp"

namespace nvlsim {

namespace {

namespace s4u = simgrid::s4u;

int gpu_id(std::string_view flag, std::string_view text) {
  const auto id = read_number<int>(text);
  if (!id || id.value < 0) fail(flag, fmt::format("not a GPU id: \"{}\"", text));
  return id.value;
}

// Batsim interval set "0-3 72-75" -> ascending ids.
std::vector<int> parse_ids(std::string_view flag, const std::string& text) {
  std::vector<int> ids;
  std::istringstream in(text);
  std::string part;
  while (in >> part) {
    const auto dash = part.find('-');
    const int a = gpu_id(flag, std::string_view(part).substr(0, dash));
    const int b = dash == std::string::npos ? a : gpu_id(flag, std::string_view(part).substr(dash + 1));
    if (b < a || (!ids.empty() && a <= ids.back())) fail(flag, "ranges must ascend without overlap");
    for (int i = a; i <= b; ++i) ids.push_back(i);
  }
  if (ids.empty()) fail(flag, "no GPUs");
  return ids;
}

void check_ids(const LoadedPlatform& p, std::span<const int> ids, std::string_view flag) {
  for (int id : ids)
    if (id >= p.spec.shape.gpus())
      fail(flag, fmt::format("GPU {} is beyond the platform's {} GPUs", id, p.spec.shape.gpus()));
}

void print_route(const LoadedPlatform& p, int a, int b) {
  // GPUs of one domain talk over their NVLink ports, others through their NICs and the fabric.
  const bool same = p.spec.shape.domain_of_gpu(a) == p.spec.shape.domain_of_gpu(b);
  const auto& hosts = same ? p.gpu_hosts : p.nic_hosts;
  std::vector<s4u::Link*> links;
  double latency = 0;
  hosts[a]->route_to(hosts[b], links, &latency);
  std::string out = fmt::format("route {} -> {} ({}):", hosts[a]->get_name(), hosts[b]->get_name(),
                                same ? "nvlink" : "infiniband");
  for (const auto* l : links) out += fmt::format(" {}", l->get_name());
  std::puts(out.c_str());
}

struct ProbeJob {
  std::vector<std::vector<int>> group_gpus;
  std::vector<GpuGroup> groups;
  Algorithm algorithm = Algorithm::ring;
  std::vector<CollectiveStep> steps;
  double elapsed = 0;
};

// Runs each job's steps one after another, all jobs at once, and records each job's simulated time.
void simulate(const LoadedPlatform& p, std::vector<ProbeJob>& jobs) {
  for (auto& job : jobs) {
    s4u::Actor::create("probe", p.gpu_hosts.front(), [&p, &job] {
      for (const auto& step : job.steps) {
        std::vector<s4u::CommPtr> comms;
        for (const auto& f : step.flows) {
          const FlowEndpoints ends = flow_endpoints(p, job.group_gpus, f);
          comms.push_back(s4u::Comm::sendto_async(ends.from, ends.to,
                                                  static_cast<std::uint64_t>(std::llround(f.wire_bytes()))));
        }
        for (auto& c : comms) c->wait();
      }
      job.elapsed = s4u::Engine::get_clock();
    });
  }
  s4u::Engine::get_instance()->run();
}

}  // namespace

CLI::App* add_probe_command(CLI::App& app, ProbeOptions& o) {
  CLI::App* probe = app.add_subcommand(
      "probe",
      "run one collective per --gpus group, all at once, and print each group's simulated and\n"
      "closed-form time (keys get .i with several groups); or print the links of one --route");
  probe->add_option("--platform", o.platform, "SimGrid platform written by `nvlsim platform` (required)")
      ->type_name("FILE");
  probe
      ->add_option_function<std::vector<std::string>>(
          "--gpus",
          [&o](const std::vector<std::string>& sets) {
            for (const auto& set : sets) o.jobs.push_back(parse_ids("--gpus", set));
          },
          "GPU ids of one job, e.g. \"0-3 72-75\"; repeatable, the jobs run at once")
      ->type_name("IDS")
      ->allow_extra_args(false)
      ->take_all();
  probe
      ->add_option_function<std::vector<std::string>>(
          "--route",
          [&o](const std::vector<std::string>& ids) {
            if (ids.size() > 2) fail("--route", "given twice");
            if (ids.size() < 2) fail("--route", "needs two GPU ids, A and B");
            o.route = {gpu_id("--route", ids[0]), gpu_id("--route", ids[1])};
          },
          "print the links between GPU A and GPU B instead")
      ->type_name("GPU")
      ->expected(2)
      ->take_all();
  probe
      ->add_option_function<std::string>(
          "--collective",
          [&o](const std::string& name) {
            if (!parse_collective(name, o.collective))
              fail("--collective", "expected all-reduce or all-to-all");
          },
          "all-reduce or all-to-all (default: all-reduce)")
      ->type_name("NAME");
  add_number(*probe, "--bytes", o.bytes, 1.0, 1e18, "S", "message size per GPU in bytes (default: 1e9)");
  add_engine_options(*probe, o.engine_args);
  probe->final_callback([&o] {
    if (o.platform.empty()) fail("--platform", "required");
    if (o.jobs.empty() == !o.route) fail("--gpus", "give either --gpus or --route");
  });
  return probe;
}

int probe_command(const ProbeOptions& o) {
  auto engine = make_engine(o.engine_args);
  const LoadedPlatform p = load_platform(*engine, o.platform);
  if (o.route) {
    check_ids(p, std::array{o.route->first, o.route->second}, "--route");
    print_route(p, o.route->first, o.route->second);
    return 0;
  }
  std::vector<ProbeJob> jobs;
  for (const auto& gpus : o.jobs) {
    check_ids(p, gpus, "--gpus");
    ProbeJob job;
    job.group_gpus = group_by_zone(gpus, p.spec.shape);
    job.groups = gpu_groups(job.group_gpus, p.spec.shape);
    CollectivePlan plan = plan_collective(o.collective, job.groups, o.bytes, p.spec.fabric);
    job.algorithm = plan.algorithm;
    job.steps = std::move(plan.steps);
    jobs.push_back(std::move(job));
  }
  simulate(p, jobs);
  // One block of lines per job; with several jobs each key carries the job's index (".0", ".1", ...).
  std::string out = fmt::format("collective {}\nmessage_bytes {}\n", to_string(o.collective), o.bytes);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& job = jobs[i];
    const std::string key = jobs.size() == 1 ? "" : fmt::format(".{}", i);
    // GPUs per domain, split by zone where a domain has several: "36+36 8".
    std::string placement;
    int n = 0;
    for (std::size_t g = 0; g < job.groups.size(); ++g) {
      const bool same_domain = g > 0 && job.groups[g - 1].domain == job.groups[g].domain;
      placement += fmt::format("{}{}", g == 0 ? "" : same_domain ? "+" : " ", job.groups[g].gpus);
      n += job.groups[g].gpus;
    }
    const int all[] = {n};
    out += fmt::format(
        "placement{0} {1}\nalgorithm{0} {5}\nsimulated_s{0} {2}\nclosed_form_s{0} {3}\nnvlink_ideal_s{0} "
        "{4}\n",
        key, placement, job.elapsed, uncontended_time(job.steps, p.spec.fabric),
        uncontended_time(plan_collective(o.collective, all, o.bytes, p.spec.fabric).steps, p.spec.fabric),
        to_string(job.algorithm));
    out += fmt::format("comm_bytes{0} {1}\ncross_domain_bytes{0} {2}\n", key, total_bytes(job.steps),
                       cross_domain_bytes(job.steps));
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace nvlsim
