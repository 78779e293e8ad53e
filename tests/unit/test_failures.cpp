// The failure model, replay files and what each policy loses to a failed part; no engine needed.

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "models/failure_model.hpp"
#include "models/failure_replay.hpp"
#include "models/input_error.hpp"
#include "nvlsim_process.hpp"
#include "placement_fixtures.hpp"
#include "schedulers/policy_registry.hpp"

using namespace nvlsim;
using nvlsim::test::scratch_dir;

namespace {

const ClusterShape kTwoRacks{2, 18, 4};
constexpr int kSwitches = 18;

std::string write_file(const std::string& name, const std::string& text) {
  const auto path = scratch_dir("failures-" + name) / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a replay file may begin with a UTF-8 byte order mark", "[failures]") {
  const auto file = write_file("bom.csv", "\xEF\xBB\xBFtime,component,id,duration\n1000,tray,5,3600\n");
  CHECK(read_failure_replay(file, kTwoRacks, kSwitches).size() == 1);
}

TEST_CASE("a replay file is read in time order", "[failures]") {
  const auto file = write_file("ok.csv",
                               "# incident log\ntime,component,id,duration\n"
                               "2000,nvswitch,35,60\n1000,tray,5,3600\n1000, gpu ,143,10\n");
  const auto events = read_failure_replay(file, kTwoRacks, kSwitches);
  REQUIRE(events.size() == 3);
  CHECK(events[0].component == Component::tray);
  CHECK(events[0].id == 5);
  CHECK(events[0].duration == 3600);
  CHECK(events[1].component == Component::gpu);  // same time: file order
  CHECK(events[2].component == Component::nvswitch);
  CHECK(events[2].time == 2000);
}

TEST_CASE("a broken replay line is named by file, line and field", "[failures][errors]") {
  const auto check = [](const std::string& body, const std::string& expected) {
    const auto file = write_file("bad.csv", "time,component,id,duration\n" + body);
    const std::string message = error_of([&] { read_failure_replay(file, kTwoRacks, kSwitches); });
    INFO(message);
    CHECK(message.find(file + ":2: " + expected) != std::string::npos);
  };
  check("-5,gpu,1,10\n", "field 1 (time)");
  check("5,cpu,1,10\n", "field 2 (component)");
  check("5,gpu,144,10\n", "field 3 (id): expected a gpu id from 0 to 143");
  check("5,rack,2,10\n", "field 3 (id): expected a rack id from 0 to 1");
  check("5,gpu,1,0\n", "field 4 (duration)");
  check("5,gpu,1\n", "expected 4 comma-separated fields");
  const auto headerless = write_file("nohead.csv", "5,gpu,1,10\n");
  CHECK(error_of([&] {
          read_failure_replay(headerless, kTwoRacks, kSwitches);
        }).find(":1: expected the header") != std::string::npos);
  const auto header_only = write_file("header.csv", "# no incidents yet\ntime,component,id,duration\n");
  CHECK(error_of([&] { read_failure_replay(header_only, kTwoRacks, kSwitches); }) ==
        header_only + ": no failures after the header (leave --failures out for a run without failures)");
}

TEST_CASE("the built-in model follows Llama 3's root causes", "[failures]") {
  const FailureModel m = llama3_failure_model();
  const double gpu_hours = 16384.0 * 54 * 24;
  CHECK(m[Component::gpu].mtbf_hours == Approx(gpu_hours / 262));
  CHECK(m[Component::nic].mtbf_hours == Approx(gpu_hours / 7));
  CHECK(m[Component::nvswitch].mtbf_hours == Approx(4096.0 * 54 * 24 / 35));
  CHECK(m[Component::tray].mtbf_hours == Approx(2048.0 * 54 * 24 / 14));
  CHECK(m[Component::rack].mtbf_hours == 0);
  CHECK(m[Component::nvlink].mtbf_hours == 0);
}

TEST_CASE("a model file overrides the base and names its bad fields", "[failures][errors]") {
  const auto file = write_file("model.json", R"({"base": "none", "rate_scale": 2,
    "components": {"gpu": {"mtbf_hours": 1000, "life": "weibull", "weibull_shape": 0.7,
                           "mttr_hours": 24, "repair": "lognormal", "lognormal_sigma": 0.5}}})");
  const FailureModel m = read_failure_model(file);
  CHECK(m[Component::gpu].mtbf_hours == 500);
  CHECK(m[Component::gpu].life == LifeDistribution::weibull);
  CHECK(m[Component::gpu].repair == RepairDistribution::lognormal);
  CHECK(m[Component::tray].mtbf_hours == 0);
  const auto bad = write_file("bad.json", R"({"components": {"gpu": {"mtbf_hours": -1}}})");
  CHECK(error_of([&] { read_failure_model(bad); }).find("components.gpu.mtbf_hours") != std::string::npos);
  const auto unknown = write_file("unknown.json", R"({"components": {"disk": {}}})");
  CHECK(error_of([&] { read_failure_model(unknown); }).find("components.disk: unknown component") !=
        std::string::npos);
  const auto repair = write_file("repair.json", R"({"components": {"gpu": {"repair": "weekly"}}})");
  CHECK(error_of([&] { read_failure_model(repair); }).find("expected one of fixed, exponential, lognormal") !=
        std::string::npos);
}

namespace {

FailureModel one_component(Component c, ComponentFailures f) {
  FailureModel m;
  m[c] = f;
  return m;
}

// Failures of the model on two racks up to `horizon` seconds.
std::vector<FailureEvent> draw(const FailureModel& m, std::uint64_t seed, double horizon) {
  FailureGenerator g(m, kTwoRacks, kSwitches, seed);
  std::vector<FailureEvent> out;
  while (auto e = g.next()) {
    if (e->time > horizon) break;
    out.push_back(*e);
  }
  return out;
}

}  // namespace

TEST_CASE("the same seed draws the same failures and another seed others", "[failures]") {
  const FailureModel m = llama3_failure_model();
  const auto a = draw(m, 7, 1e9);
  const auto b = draw(m, 7, 1e9);
  const auto c = draw(m, 8, 1e9);
  REQUIRE(a.size() > 100);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].time == b[i].time);
    CHECK(a[i].id == b[i].id);
    CHECK(a[i].duration == b[i].duration);
    if (i > 0) CHECK(a[i].time >= a[i - 1].time);
  }
  CHECK((c.size() != a.size() || c.front().time != a.front().time));
}

TEST_CASE("failure counts and repair times match the distributions' means", "[failures]") {
  // 144 GPUs for 1e4 MTBFs: a renewal process with mean cycle MTBF + MTTR fails about
  // horizon / (MTBF + MTTR) times per GPU; the count is within 5 standard deviations of that.
  const auto check = [](ComponentFailures f) {
    const double horizon = 1e4 * f.mtbf_hours * 3600;
    const auto events = draw(one_component(Component::gpu, f), 3, horizon);
    const double expected = 144 * horizon / ((f.mtbf_hours + f.mttr_hours) * 3600);
    double repair = 0;
    for (const auto& e : events) repair += e.duration;
    INFO("life " << static_cast<int>(f.life) << ", repair " << static_cast<int>(f.repair));
    // Weibull shape < 1 counts vary more than Poisson; 5 sigma of a Poisson count bounds the rest.
    CHECK(std::abs(static_cast<double>(events.size()) - expected) < 5 * std::sqrt(expected) * 1.5);
    CHECK(repair / static_cast<double>(events.size()) / 3600 == Approx(f.mttr_hours).epsilon(0.03));
  };
  check({10, LifeDistribution::exponential, 1, 2, RepairDistribution::exponential, 1});
  check({10, LifeDistribution::weibull, 0.7, 2, RepairDistribution::lognormal, 0.5});
  check({10, LifeDistribution::weibull, 2.5, 2, RepairDistribution::fixed, 1});
}

namespace {

// A fresh two-rack machine with GPU 21 (tray 5, rack 0) down.
ClusterState one_gpu_down() {
  ClusterState state(kTwoRacks);
  state.set_down(21, true);
  return state;
}

int stranded(const std::string& spec, const ClusterState& state) {
  const int down_trays[] = {5};
  return make_policy(spec, PolicyContext{kTwoRacks})->failure_stranded_gpus(state, down_trays);
}

}  // namespace

TEST_CASE("one failed GPU strands only its tray, unless min_block_nodes closes the rack", "[failures]") {
  const ClusterState state = one_gpu_down();
  CHECK(stranded("per-gpu", state) == 0);
  CHECK(stranded("tree", state) == 0);
  CHECK(stranded("block", state) == 3);  // Slurm: the down tray leaves, the rack stays open
  CHECK(stranded("block:min_block_nodes=16", state) == 3);     // 17 idle trays are enough
  CHECK(stranded("block:min_block_nodes=18", state) == 71);    // every healthy GPU of rack 0
  CHECK(stranded("sub-block:segment=1", state) == 3);          // the tray's other GPUs
  CHECK(stranded("sub-block:segment=16", state) == 3);         // 17 trays still hold one 16-node segment
  CHECK(stranded("sub-block:segment=9", state) == 8 * 4 + 3);  // 17 trays hold one 9-node segment, not two

  // Placement agrees: 16 whole trays fit rack 0 under block, but not when min_block_nodes asks for 18.
  ClusterState other_rack_busy = one_gpu_down();
  other_rack_busy.apply(Allocation{nvlsim::test::ids(72, 144), {}});
  const auto trays = [](int count) { return nvlsim::JobRequest{4 * count, nvlsim::RequestShape::nodes}; };
  CHECK(make_policy("block", PolicyContext{kTwoRacks})->place(other_rack_busy, trays(16)));
  CHECK_FALSE(
      make_policy("block:min_block_nodes=18", PolicyContext{kTwoRacks})->place(other_rack_busy, trays(16)));
  CHECK(make_policy("sub-block:segment=1", PolicyContext{kTwoRacks})->place(other_rack_busy, trays(17)));
  CHECK_FALSE(
      make_policy("sub-block:segment=1", PolicyContext{kTwoRacks})->place(other_rack_busy, trays(18)));
  CHECK(stranded("block", other_rack_busy) == 3);
  CHECK(stranded("block:min_block_nodes=18", other_rack_busy) == 71);

  // A block a job holds is busy, not stranded by the failure.
  ClusterState held = one_gpu_down();
  held.apply(Allocation{nvlsim::test::ids(0, 20), nvlsim::test::ids(0, 18)});
  CHECK(stranded("block", held) == 0);
}
